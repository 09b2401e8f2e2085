// Package epk computes effective partition keys (EPKs) exactly as the azcosmos v1.5.0 SDK does
// client side, so that a server placing documents by EPK agrees with the SDK's own routing
// (ReadManyItems, feed ranges, change feed).
//
// An EPK is an upper-case hex string. Version 2 hashes MurmurHash3 x64_128 over the encoded
// components and clears the top two bits of the first byte, so every V2 EPK (and every 32-hex block
// of a MultiHash EPK) is below "40". Version 1 (the SDK's simplified form) is, per component, 24 zeros
// followed by the 8 hex digits of MurmurHash3 x86_32. Range boundaries compare with [Compare], which
// treats a zero-padded tail as equal, as the SDK's CompareEPK does.
package epk
