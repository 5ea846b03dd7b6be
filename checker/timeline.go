package checker

// What the checker derived that a timeline draws: the holds it judged
// (Result.Holds) and the lock keys' lives on every node
// (Result.KeySpans), typed, so that the view draws them instead of
// deriving them again.

// Hold is one interval during which a client believed it held a lock:
// from its outermost acquire's return to the call of the release that
// ended it, its process's crash, or the end of time. A reentrant
// client's nested acquires and releases fall inside one hold.
type Hold struct {
	Key     string
	Client  string
	Process string
	Acquire int   // the op id of the outermost acquire
	Release int   // the op id of the release that ended it, -1
	Start   int64 // ns
	End     int64 // ns; Forever if it never ended
	Crash   int   // the crash event that ended it, -1
	Nested  bool  // the client acquired again while holding
}

// Forever is the end of a hold or key span that outlived the run.
const Forever = maxTime

// Holds lists the holds the checker judged, by start time.
func (res *Result) Holds() []Hold {
	out := make([]Hold, len(res.holds))
	for i, h := range res.holds {
		out[i] = Hold{Key: h.Key, Client: h.Client, Process: h.Process, Acquire: h.Acquire.ID, Release: h.Release,
			Start: h.Start, End: h.End, Crash: h.Crash, Nested: h.Nested}
	}
	return out
}

// KeySpans lists every life of a lock key on every node, in the order
// they began (see keySpans).
func (res *Result) KeySpans() []KeySpan {
	if res.trace == nil {
		return []KeySpan{}
	}
	lockKeys := make(map[string]bool, len(res.lockKeys))
	for _, k := range res.lockKeys {
		lockKeys[k] = true
	}
	return keySpans(res.trace, lockKeys)
}
