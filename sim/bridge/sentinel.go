package bridge

import (
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// MasterName is the name the simulated sentinel monitors the master by,
// the FailoverOptions.MasterName of the clients the bridge builds, unless
// Topology.Failover names another.
const MasterName = "mymaster"

// switchMaster is the sentinel's pub/sub channel for failovers.
const switchMaster = "+switch-master"

// sentinel answers go-redis's sentinel client for the world's failover
// controller (the sim's sentinel process): it names the master the
// controller knows, and publishes +switch-master when it promotes.
type sentinel struct {
	b      *Bridge
	master string // the name it monitors the master by
	subs   []*link
}

func newSentinel(b *Bridge) *sentinel {
	s := &sentinel{b: b, master: MasterName}
	if f := b.topo.Failover; f != nil && f.MasterName != "" {
		s.master = f.MasterName
	}
	b.w.OnPromote(s.promoted)
	return s
}

// serve answers a batch of commands from l and records each in the trace.
func (s *sentinel) serve(l *link, batch [][]string) []byte {
	var out []byte
	for _, args := range batch {
		for _, r := range s.answer(l, args) {
			out = appendReply(out, r)
			s.b.w.Record(trace.Command(sim.Sentinel, l.th.client, "", args, r.String(), ""))
		}
	}
	return out
}

// answer is the sentinel's replies to one command (SUBSCRIBE answers once
// per channel).
func (s *sentinel) answer(l *link, args []string) []sim.Reply {
	one := func(r sim.Reply) []sim.Reply { return []sim.Reply{r} }
	switch strings.ToUpper(args[0]) {
	case "SENTINEL":
		if len(args) < 3 {
			return one(errReply("ERR wrong number of arguments for 'sentinel' command"))
		}
		return one(s.query(strings.ToLower(args[1]), args[2]))
	case "PING":
		if len(l.subs) > 0 {
			return one(bulks("pong", ""))
		}
		return one(sim.Reply{Kind: '+', Str: "PONG"})
	case "SUBSCRIBE":
		var out []sim.Reply
		for _, ch := range args[1:] {
			if !slices.Contains(l.subs, ch) {
				l.subs = append(l.subs, ch)
			}
			out = append(out, subscribed("subscribe", ch, len(l.subs)))
		}
		if !slices.Contains(s.subs, l) {
			s.subs = append(s.subs, l)
		}
		return out
	case "UNSUBSCRIBE":
		l.subs = nil
		return one(subscribed("unsubscribe", "", 0))
	}
	return one(errReply("ERR unknown command '" + args[0] + "' (locksim's sentinel answers SENTINEL, PING, SUBSCRIBE)"))
}

// query answers SENTINEL sub name.
func (s *sentinel) query(sub, name string) sim.Reply {
	if name != s.master {
		return sim.Reply{} // no such master: a null reply
	}
	switch sub {
	case "get-master-addr-by-name":
		host, port, _ := net.SplitHostPort(s.b.addr[s.b.w.MasterName()])
		return bulks(host, port)
	case "sentinels", "replicas", "slaves":
		return sim.Reply{Kind: '*'}
	}
	return errReply("ERR unknown sentinel subcommand '" + sub + "'")
}

// promoted publishes +switch-master to every subscribed connection.
func (s *sentinel) promoted(old, promoted string) {
	oh, op, _ := net.SplitHostPort(s.b.addr[old])
	nh, np, _ := net.SplitHostPort(s.b.addr[promoted])
	msg := strings.Join([]string{s.master, oh, op, nh, np}, " ")
	out := appendReply(nil, bulks("message", switchMaster, msg))
	live, n := s.subs[:0], 0
	for _, l := range s.subs {
		if l.gone {
			continue
		}
		live = append(live, l)
		if slices.Contains(l.subs, switchMaster) {
			l.push(sim.Sentinel, switchMaster, out)
			n++
		}
	}
	s.subs = live
	s.b.w.Record(trace.Publish(sim.Sentinel, switchMaster, msg+" to "+strconv.Itoa(n)+" subscribers"))
}

func subscribed(kind, ch string, n int) sim.Reply {
	r := bulks(kind, ch)
	r.Array = append(r.Array, sim.Reply{Kind: ':', Int: int64(n)})
	return r
}

func errReply(msg string) sim.Reply { return sim.Reply{Kind: '-', Str: msg} }
