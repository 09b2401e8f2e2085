// Command cosmosbulk imports a JSON Lines file (one document per line) into a container with the
// bulk executor. It shows a progress bar, can be capped to a throughput budget, and is resumable:
// with a checkpoint file, an interrupted import started again skips the lines already done.
//
//	cosmosbulk --database shop --container orders --file orders.jsonl [--checkpoint orders.ckpt]
//	           [--max-ru 3000 | --max-fraction 0.3] [--low-priority] [--create]
//	           [--global-group import [--control-container throughput-control]]
//
// With --global-group, the cap is shared by every process (cosmosbulk or any program with a
// throughput.GlobalGroup) in the global group of that name, through the control container named
// by --control-container (default throughput-control) in --database, which must exist,
// partitioned on /groupId with time to live on (DefaultTimeToLive -1): each process takes an equal
// share and a process joining waits for the others to give up theirs (at most 5 s). Without it
// (the default), the cap is this process's own.
//
// The account comes from the environment as cosmoskit.ConfigFromEnv reads it (COSMOS_ENDPOINT and
// COSMOS_KEY, or COSMOS_CONNECTION_STRING, or a Microsoft Entra ID credential). Each line is
// upserted (or created, with --create) under the partition key read from the document at the
// container's partition key paths. Lines that cannot be imported (not a JSON object, no id, a
// document over 2 MB, refused by the service) are reported on stderr by line number, never by
// content, and the exit status is 1; the rest of the file is still imported.
//
// The checkpoint holds the number of leading lines done (imported or reported) and the file's
// size and modification time; it is written every second and at the end. Upserts are idempotent,
// so lines past the checkpoint that were done before the interruption are written again, not
// duplicated; with --create they answer 409 and count as done.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cosmosbulk:", err)
		os.Exit(1)
	}
}
