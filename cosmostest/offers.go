package cosmostest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// minThroughput is the smallest manual throughput (and autoscale floor) the server accepts.
const minThroughput = 400

// offerFromHeaders creates the offer a create request asks for with x-ms-offer-throughput
// (manual) or x-ms-cosmos-offer-autopilot-settings (autoscale); nil when neither is present.
func (srv *server) offerFromHeaders(rq *request, resource, rid string) (*offer, error) {
	var content map[string]any
	if v := rq.hdr(hdrOfferThroughput); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < minThroughput || n%100 != 0 {
			return nil, badRequest("The offer throughput %q is invalid: it must be a multiple of 100 and at least %d.", v, minThroughput)
		}
		content = map[string]any{"offerThroughput": n}
	} else if v := rq.hdr(hdrOfferAutopilot); v != "" {
		var ap map[string]any
		if err := json.Unmarshal([]byte(v), &ap); err != nil {
			return nil, badRequest("The autopilot settings %q are not valid JSON.", v)
		}
		maxT, _ := ap["maxThroughput"].(float64)
		if maxT < 1000 || int(maxT)%1000 != 0 {
			return nil, badRequest("The autoscale max throughput must be a multiple of 1000 and at least 1000.")
		}
		content = map[string]any{"offerThroughput": int(maxT) / 10, "offerAutopilotSettings": ap}
	} else {
		return nil, nil
	}
	o := &offer{id: srv.store.newOfferID(), resourceRID: rid, resource: resource, content: content, ts: srv.now().Unix(), etag: srv.store.nextETag()}
	srv.store.offers[strings.ToLower(o.id)] = o
	return o, nil
}

func (srv *server) handleOffers(rq *request) error {
	if rq.verb != verbQuery && rq.verb != verbReadFeed {
		return unsupported(string(rq.verb) + " on /offers")
	}
	docs := make([]queryDoc, 0, len(srv.store.offers))
	for _, k := range sortedKeys(srv.store.offers) {
		docs = append(docs, queryDoc{Key: k, Value: srv.store.offers[k].json()})
	}
	return srv.metadataQuery(rq, "", "Offers", docs)
}

func (srv *server) handleOffer(rq *request) error {
	o := srv.store.offers[strings.ToLower(rq.ID)]
	if o == nil {
		return newError(http.StatusNotFound, subNone, "Resource Not Found. Learn more: https://aka.ms/cosmosdb-tsg-not-found")
	}
	rq.charge = ruMetadataRead
	switch rq.verb {
	case verbRead:
		rq.header.Set("etag", o.etag)
		if inm := rq.hdr("If-None-Match"); inm != "" && inm == o.etag {
			rq.reply(http.StatusNotModified, nil)
			return nil
		}
		rq.reply(http.StatusOK, mustJSON(o.json()))
		return nil
	case verbReplace:
		if im := rq.hdr("If-Match"); im != "" && im != o.etag {
			return preconditionFailed()
		}
		var body struct {
			Content map[string]any `json:"content"`
		}
		if err := json.Unmarshal(rq.body, &body); err != nil || body.Content == nil {
			return badRequest("The offer body is invalid: content is required.")
		}
		_, wasAuto := o.content["offerAutopilotSettings"]
		ap, isAuto := body.Content["offerAutopilotSettings"].(map[string]any)
		if wasAuto != isAuto {
			return badRequest("cosmostest: switching between manual and autoscale throughput needs the migrate API, which is not supported (as with a plain PUT on the service).")
		}
		if isAuto {
			maxT, _ := ap["maxThroughput"].(float64)
			if maxT < 1000 || int(maxT)%1000 != 0 {
				return badRequest("The autoscale max throughput must be a multiple of 1000 and at least 1000.")
			}
			o.content = map[string]any{"offerThroughput": int(maxT) / 10, "offerAutopilotSettings": ap}
		} else {
			t, _ := body.Content["offerThroughput"].(float64)
			if t < minThroughput || int(t)%100 != 0 || t != float64(int(t)) {
				return badRequest("The offer throughput %v is invalid: it must be a multiple of 100 and at least %d.", t, minThroughput)
			}
			o.content = map[string]any{"offerThroughput": int(t)}
		}
		o.etag = srv.store.nextETag()
		o.ts = srv.now().Unix()
		rq.charge = ruMetadataWrite
		rq.header.Set("etag", o.etag)
		rq.header.Set("x-ms-offer-replace-pending", "false")
		rq.header.Set("x-ms-cosmos-min-throughput", strconv.Itoa(minThroughput))
		rq.reply(http.StatusOK, mustJSON(o.json()))
		return nil
	}
	return unsupported(string(rq.verb) + " on an offer")
}
