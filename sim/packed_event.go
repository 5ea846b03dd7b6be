package sim

import "github.com/locksim/locksim/sim/trace"

// packedEvent is a trace.Event as the recorder keeps it during the run:
// its strings as numbers in the run's stringTable (a run's events repeat
// a few hundred distinct strings), 72 bytes against 160. A long run's
// events are most of its memory.
type packedEvent struct {
	t, dur                                          int64
	args                                            []string
	kind, party, client, key, reply, change, detail uint32
	fault                                           int32 // a fault schedule's index: far below 2^31
}

// stringTable numbers distinct strings; 0 is "".
type stringTable struct {
	strs []string
	ids  map[string]uint32
}

func (s *stringTable) id(v string) uint32 {
	if v == "" {
		return 0
	}
	if id, ok := s.ids[v]; ok {
		return id
	}
	if s.ids == nil {
		s.ids, s.strs = map[string]uint32{}, []string{""}
	}
	id := uint32(len(s.strs))
	s.strs = append(s.strs, v)
	s.ids[v] = id
	return id
}

func (s *stringTable) pack(e trace.Event) packedEvent {
	return packedEvent{t: e.T, dur: e.DurNs, args: e.Args,
		kind: s.id(e.Kind), party: s.id(e.Party), client: s.id(e.Client), key: s.id(e.Key),
		reply: s.id(e.Reply), change: s.id(e.Change), detail: s.id(e.Detail), fault: int32(e.Fault)}
}

// unpack appends the events of b to out.
func (s *stringTable) unpack(out []trace.Event, b []packedEvent) []trace.Event {
	if s.strs == nil {
		s.strs = []string{""}
	}
	for _, p := range b {
		out = append(out, trace.Event{T: p.t, Kind: s.strs[p.kind], Party: s.strs[p.party], Client: s.strs[p.client],
			Key: s.strs[p.key], Args: p.args, Reply: s.strs[p.reply], Change: s.strs[p.change],
			Detail: s.strs[p.detail], DurNs: p.dur, Fault: int(p.fault)})
	}
	return out
}
