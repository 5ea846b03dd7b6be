package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// ReplicationConfig is the lag model of asynchronous replication.
type ReplicationConfig struct {
	LagMin time.Duration
	LagMax time.Duration
}

// replLink is a master's replication stream to one replica: effects in
// order, delivered one at a time; while the link is cut they wait (TCP
// and the backlog keep them), so a partition delays them and only a
// master crash loses what was not yet delivered.
type replLink struct {
	from, to *Node
	queue    []effect
	pumping  bool
	acked    int64
	extraLag time.Duration
}

type effect struct {
	st      keyState
	offset  int64
	readyAt time.Duration
}

// AddReplica makes replica replicate from master, starting with a full
// copy of master's data.
func (w *World) AddReplica(master, replica *Node) {
	replica.role = roleReplica
	replica.load(master.snapshot())
	replica.scheduleTick()
	replica.offset = master.offset
	master.links = append(master.links, &replLink{from: master, to: replica, acked: master.offset})
}

// SetReplication sets the lag model.
func (w *World) SetReplication(c ReplicationConfig) { w.repl = c }

// Offset is how many effects the node has produced (master) or applied
// (replica): the replication offset failover compares.
func (n *Node) Offset() int64 { return n.offset }

// IsMaster reports the node's role.
func (n *Node) IsMaster() bool { return n.role == roleMaster }

func (n *Node) ship(st keyState) {
	n.offset++
	for _, l := range n.links {
		lag := n.w.net.latency(n.Name, l.to.Name) + l.extraLag
		r := n.w.streams.Get("replication")
		lag += n.w.repl.LagMin
		if span := n.w.repl.LagMax - n.w.repl.LagMin; span > 0 {
			lag += time.Duration(r.Int64N(int64(span) + 1))
		}
		l.queue = append(l.queue, effect{st: st, offset: n.offset, readyAt: n.w.now + lag})
		l.pump()
	}
}

func (l *replLink) pump() {
	if l.pumping || len(l.queue) == 0 {
		return
	}
	l.pumping = true
	w := l.from.w
	w.schedule(l.queue[0].readyAt, nil, func() {
		l.pumping = false
		if len(l.queue) == 0 || !l.connected() {
			if len(l.queue) > 0 {
				l.queue[0].readyAt = w.now + 100*time.Millisecond
			}
			l.pump()
			return
		}
		e := l.queue[0]
		l.queue = l.queue[1:]
		l.to.applyReplicated(e)
		off := e.offset
		w.net.send(l.to.Name, l.from.Name, nil, "REPLCONF ACK", func() {
			if off > l.acked {
				l.acked = off
				l.from.checkWaiters()
			}
		})
		l.pump()
	})
}

func (l *replLink) connected() bool {
	return !l.from.down && !l.to.down && l.to.role == roleReplica && l.from.role == roleMaster &&
		!l.from.w.net.Blocked(l.from.Name, l.to.Name)
}

func (n *Node) applyReplicated(e effect) {
	existed := n.m.Exists(e.st.Key)
	n.apply(e.st)
	n.offset = e.offset
	change := ""
	switch exists := n.m.Exists(e.st.Key); {
	case exists && !existed:
		change = trace.KeyCreated
	case !exists && existed:
		change = trace.KeyDeleted
	}
	n.w.rec.event(trace.Replicated(n.Name, e.st.Key, change,
		"offset "+strconv.FormatInt(e.offset, 10)+" from "+e.st.Key))
	n.noteTTLs([]string{e.st.Key})
}

// waiter is a WAIT numreplicas timeout in progress.
type waiter struct {
	target int64
	num    int
	reply  replier
	done   bool
}

// wait runs WAIT: it answers at once when enough replicas acknowledged
// every write so far, else when they do or the timeout (ms, 0 = never)
// passes, with the number that did.
func (n *Node) wait(args []string, reply replier) (Reply, bool) {
	if len(args) != 3 {
		return Reply{Kind: '-', Str: "ERR wrong number of arguments for 'wait' command"}, false
	}
	num, err1 := strconv.Atoi(args[1])
	ms, err2 := strconv.ParseInt(args[2], 10, 64)
	if err1 != nil || err2 != nil || ms < 0 {
		return Reply{Kind: '-', Str: "ERR value is not an integer or out of range"}, false
	}
	if n.role == roleReplica {
		return Reply{Kind: '-', Str: "ERR WAIT cannot be used with replica instances."}, false
	}
	if c := n.acked(n.offset); c >= num {
		return Reply{Kind: ':', Int: int64(c)}, false
	}
	wt := &waiter{target: n.offset, num: num, reply: reply}
	n.waiters = append(n.waiters, wt)
	if ms > 0 {
		n.w.schedule(n.w.now+time.Duration(ms)*time.Millisecond, nil, func() {
			if !wt.done && !n.down {
				wt.done = true
				c := n.acked(wt.target)
				n.w.rec.event(trace.Command(n.Name, "", "", []string{"WAIT", "(timeout)"}, Reply{Kind: ':', Int: int64(c)}.String(), ""))
				reply.answer(Reply{Kind: ':', Int: int64(c)})
			}
		})
	}
	return Reply{}, true
}

func (n *Node) acked(target int64) int {
	c := 0
	for _, l := range n.links {
		if l.acked >= target {
			c++
		}
	}
	return c
}

func (n *Node) checkWaiters() {
	kept := n.waiters[:0]
	for _, wt := range n.waiters {
		if wt.done {
			continue
		}
		if c := n.acked(wt.target); c >= wt.num {
			wt.done = true
			n.w.rec.event(trace.Command(n.Name, "", "", []string{"WAIT", "(acknowledged)"}, Reply{Kind: ':', Int: int64(c)}.String(), ""))
			wt.reply.answer(Reply{Kind: ':', Int: int64(c)})
			continue
		}
		kept = append(kept, wt)
	}
	n.waiters = kept
}

// infoReplication reports whether INFO args asks for the replication
// section (INFO, INFO replication, INFO all, INFO everything).
func infoReplication(args []string) bool {
	if len(args) == 1 {
		return true
	}
	switch strings.ToLower(args[1]) {
	case "replication", "all", "everything", "default":
		return true
	}
	return false
}

// infoReplication answers INFO's replication section: the role and, on
// a master, connected_slaves. A replica counts while it is up and
// replicating from this node: Redis notices a partitioned one only after
// repl-timeout (60 s), a crashed one at once.
func (n *Node) infoReplication() Reply {
	if n.role == roleReplica {
		return Reply{Kind: '$', Str: "# Replication\r\nrole:slave\r\n"}
	}
	c := 0
	for _, l := range n.links {
		if !l.to.down && l.to.role == roleReplica {
			c++
		}
	}
	return Reply{Kind: '$', Str: "# Replication\r\nrole:master\r\nconnected_slaves:" + strconv.Itoa(c) + "\r\n"}
}
