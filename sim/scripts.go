package sim

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/alicebob/miniredis/v2/server"

	"github.com/locksim/locksim/sim/luafast"
)

// Script is a Lua script body with a fast path: Go code, proven equal to
// the script, that the nodes run instead of the Lua VM. Protocols declare
// their scripts (Config.Scripts); the simulator knows only Redis.
type Script = luafast.Script

// scriptSync keeps a node's two script caches in step, so that the node
// has one, as Redis does: the Lua engine serves script commands outside
// MULTI, while script commands queued in MULTI run inside miniredis at
// EXEC against miniredis's own cache.
//
// miniredis parses a script on SCRIPT LOAD, and runs scripts only inside
// MULTI, so the bodies the engine caches reach miniredis lazily: just
// before a script command is queued in MULTI and before EXEC, in the order
// the engine cached them, after any SCRIPT FLUSH that came between.
type scriptSync struct {
	mini   map[string]bool // bodies miniredis has loaded or will at the next sync
	hot    [8]string       // the first bodies of mini, scanned before it
	nHot   int
	unsent []string     // bodies the engine cached that miniredis has yet to load
	flushd bool         // a SCRIPT FLUSH miniredis has yet to run (before unsent)
	peer   *server.Peer // the node's own connection for the upkeep
	out    bytes.Buffer
	busy   bool // the upkeep's own commands go to miniredis
}

// newScriptSync returns the upkeep of a node whose own connection writes
// through bw (pointed at the upkeep's buffer here).
func newScriptSync(bw *bufio.Writer) *scriptSync {
	s := &scriptSync{mini: map[string]bool{}}
	bw.Reset(&s.out)
	s.peer = server.NewPeer(bw)
	return s
}

// scriptCommand serves EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT for
// the pre-hook; false hands the command to miniredis. With v, a native
// twin's reply may come back in v instead of being written to c.
func (n *Node) scriptCommand(c *server.Peer, info commandInfo, cmd string, args []string, v *luafast.Value) bool {
	s := n.scripts
	if s.busy {
		return false
	}
	body, flush := "", false
	switch {
	case info.flags&cmdScriptBody != 0 && len(args) > 0:
		body = args[0]
	case cmd == "SCRIPT" && len(args) == 2 && strings.EqualFold(args[0], "LOAD"):
		body = args[1]
	case cmd == "SCRIPT" && len(args) == 1 && strings.EqualFold(args[0], "FLUSH"):
		flush = true
	}
	if t := n.tx[c]; t != nil {
		s.sync(n)
		if body != "" {
			t.bodies = append(t.bodies, body)
		}
		t.flush = t.flush || flush
		return false
	}
	handled := n.lua.HandleValue(c, cmd, args, v)
	switch {
	case body != "" && !s.loaded(body) && n.lua.Exposed(n.lua.SHA1(body)):
		s.unsent = append(s.unsent, body)
		s.load(body)
	case flush:
		s.unsent = s.unsent[:0]
		s.flushd = true
		s.forget()
	}
	return handled
}

// sync brings miniredis's cache to the engine's: the flush and the loads
// it has not run yet, in order.
func (s *scriptSync) sync(n *Node) {
	if s.flushd {
		s.miniredis(n, "SCRIPT", "FLUSH")
		s.flushd = false
	}
	for _, b := range s.unsent {
		s.miniredis(n, "SCRIPT", "LOAD", b)
	}
	s.unsent = s.unsent[:0]
}

// afterExec brings to the engine what transaction t, which ran, did to
// miniredis's cache: scripts it ran or loaded, a flush.
func (n *Node) afterExec(t *txState) {
	s := n.scripts
	if t.flush {
		n.lua.Handle(s.peer, "SCRIPT", []string{"FLUSH"})
		s.forget()
	}
	for _, b := range t.bodies {
		if sha := n.lua.SHA1(b); s.miniredisHas(n, sha) && !n.lua.Exposed(sha) {
			s.out.Reset()
			n.lua.Handle(s.peer, "SCRIPT", []string{"LOAD", b})
			s.load(b)
		}
	}
}

// miniredisHas asks miniredis whether the body of SHA1 sha is cached.
func (s *scriptSync) miniredisHas(n *Node, sha string) bool {
	s.out.Reset()
	s.busy = true
	n.srv.Dispatch(s.peer, []string{"SCRIPT", "EXISTS", sha})
	s.busy = false
	s.peer.Flush()
	r, err := ParseReply(s.out.Bytes())
	return err == nil && len(r.Array) == 1 && r.Array[0].Int == 1
}

// loaded reports whether body is in mini.
func (s *scriptSync) loaded(body string) bool {
	for _, b := range s.hot[:s.nHot] {
		if b == body {
			return true
		}
	}
	return s.mini[body]
}

// load adds body to mini.
func (s *scriptSync) load(body string) {
	s.mini[body] = true
	if s.nHot < len(s.hot) {
		s.hot[s.nHot] = body
		s.nHot++
	}
}

// forget empties mini.
func (s *scriptSync) forget() {
	clear(s.mini)
	s.hot, s.nHot = [8]string{}, 0
}

// miniredis runs one upkeep command on miniredis itself.
func (s *scriptSync) miniredis(n *Node, args ...string) {
	s.busy = true
	n.srv.Dispatch(s.peer, args)
	s.busy = false
	s.peer.Flush()
	s.out.Reset()
}
