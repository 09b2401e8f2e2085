package retry

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"reflect"
	"time"
	"unsafe"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
)

type armResult struct {
	arm int
	res result
}

// requestValuesField is the name of policy.Request's unexported operation-values map in the azcore
// versions this package was checked against (v1.x up to at least v1.23). A variable so that a test
// can simulate an azcore without it.
var requestValuesField = "values"

// isolateValues gives r its own copy of the operation values it shares with the request it was
// cloned from. azcore's policies below this one (the log policy counts tries there) write to that
// map, so hedged attempts running at once must not share it (concurrent writes to one map crash the
// process). policy.Request offers no way to copy it, so this reaches into its unexported field with
// reflect and unsafe; it reports false when the field is missing or not a map, or the request has
// any field the checked versions do not have (a future azcore), and the policy then does not hedge:
// the read goes through the ordinary region walk instead.
func isolateValues(r *policy.Request) bool {
	if !knownRequestLayout() {
		return false
	}
	f := reflect.ValueOf(r).Elem().FieldByName(requestValuesField)
	if !f.IsValid() || f.Kind() != reflect.Map || !f.CanAddr() {
		return false
	}
	f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	if f.IsNil() {
		return true
	}
	m := reflect.MakeMapWithSize(f.Type(), f.Len())
	for it := f.MapRange(); it.Next(); {
		m.SetMapIndex(it.Key(), it.Value())
	}
	f.Set(m)
	return true
}

// knownRequestLayout reports whether policy.Request has exactly the fields of the azcore versions
// checked (an *http.Request, a body, the remaining policies and the values map). A request with any
// other field might hold more state that concurrent attempts would share, so hedging is off then.
func knownRequestLayout() bool {
	t := reflect.TypeFor[policy.Request]()
	want := map[string]reflect.Kind{"req": reflect.Pointer, "body": reflect.Interface, "policies": reflect.Slice, requestValuesField: reflect.Map}
	if t.Kind() != reflect.Struct || t.NumField() != len(want) {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if k, ok := want[f.Name]; !ok || f.Type.Kind() != k {
			return false
		}
	}
	return true
}

// hedgeArms prepares one request per region, each with its own context, body and operation
// values; ok is false when the request cannot be hedged.
func hedgeArms(req *policy.Request, n int) (arms []*policy.Request, cancels []context.CancelFunc, ok bool) {
	ctx := req.Raw().Context()
	var body []byte
	contentType := req.Raw().Header.Get("Content-Type")
	if b := req.Body(); b != nil {
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			return nil, nil, false
		}
		data, err := io.ReadAll(b)
		if _, serr := b.Seek(0, io.SeekStart); err != nil || serr != nil {
			return nil, nil, false
		}
		body = data
	}
	for range n {
		actx, cancel := context.WithCancel(ctx)
		arm := req.Clone(actx)
		cancels = append(cancels, cancel)
		arms = append(arms, arm)
		if !isolateValues(arm) {
			ok = false
			break
		}
		ok = true
		if body != nil {
			if err := arm.SetBody(streaming.NopCloser(bytes.NewReader(body)), contentType); err != nil {
				ok = false
				break
			}
		}
	}
	if !ok {
		for _, c := range cancels {
			c()
		}
		return nil, nil, false
	}
	return arms, cancels, true
}

// hedge sends arms[0] to regions[0], then, while no final answer has come, arms[1] to regions[1]
// after h.Threshold and each further arm every h.Step (or at once when an arm fails transiently).
// The first final answer wins and the other arms are cancelled; their results are discarded in
// the background.
func (p *PipelinePolicy) hedge(ctx context.Context, arms []*policy.Request, cancels []context.CancelFunc, regions []region, r route, h HedgingOptions) (*http.Response, error) {
	results := make(chan armResult, len(regions))
	started := 0
	launch := func() {
		i := started
		started++
		go func() {
			results <- armResult{arm: i, res: p.attempt(arms[i], regions[i], r, &throttleState{}, false)}
		}()
	}
	cancelAll := func(pending int) {
		for _, c := range cancels {
			c()
		}
		if pending > 0 {
			go func() {
				for ; pending > 0; pending-- {
					ar := <-results
					ar.res.close()
				}
			}()
		}
	}
	launch()
	pending := 1
	timer := time.NewTimer(h.Threshold)
	defer timer.Stop()
	var last *result
	for pending > 0 || started < len(regions) {
		var tick <-chan time.Time
		if started < len(regions) {
			tick = timer.C
		}
		select {
		case ar := <-results:
			pending--
			res := ar.res
			if res.final {
				last.close()
				cancelAll(pending)
				return res.resp, res.err
			}
			if !res.skipped {
				last.close()
				last = &res
			}
			if started < len(regions) { // a transient failure: hedge at once
				launch()
				pending++
				timer.Reset(h.Step)
			}
		case <-tick:
			launch()
			pending++
			timer.Reset(h.Step)
		case <-ctx.Done():
			last.close()
			cancelAll(pending)
			return nil, ctx.Err()
		}
	}
	cancelAll(0)
	if last == nil {
		return nil, &finalError{circuitOpen(r.op, regions)}
	}
	return nil, last.giveUp()
}
