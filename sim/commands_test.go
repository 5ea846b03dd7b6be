package sim

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// lookupCommand looks cmd up in the table, as a node does.
func lookupCommand(cmd string) commandInfo { return new(commandCache).lookup(cmd) }

// registered lists the commands miniredis registers: the commands a node
// serves, and so every command a catalog protocol can send it.
func registered(t *testing.T) (*miniredis.Miniredis, []string) {
	t.Helper()
	m := miniredis.NewMiniRedis()
	c, err := m.Dial() // starts the server, as the pool's stores are
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	cmds := reflect.ValueOf(m.Server()).Elem().FieldByName("cmds")
	if cmds.Kind() != reflect.Map {
		t.Fatal("miniredis's command registry (server.Server.cmds) moved: find the commands another way")
	}
	var names []string
	for _, k := range cmds.MapKeys() {
		names = append(names, k.String())
	}
	slices.Sort(names)
	if len(names) < 150 || !slices.Contains(names, "GET") {
		t.Fatalf("miniredis registers %d commands (%v): not its registry", len(names), names)
	}
	return m, names
}

// TestCommandTable fails when a command the node serves has no entry in
// the command table, and when the table's write flag departs from what
// the node has always counted as a write: miniredis's mark (not
// read-only), but for the commands the node serves itself or that
// change no data.
func TestCommandTable(t *testing.T) {
	m, names := registered(t)
	notWrites := strings.Fields("WAIT MULTI DISCARD WATCH UNWATCH PUBLISH SCRIPT PING ECHO INFO TIME")
	// Refused by the node before miniredis sees them: a replica answers
	// that they are not supported, where it once answered READONLY.
	refused := strings.Fields("SUBSCRIBE PSUBSCRIBE UNSUBSCRIBE PUNSUBSCRIBE")
	for _, name := range names {
		c, ok := commands[name]
		if !ok {
			t.Errorf("%s: miniredis serves it, but the command table (sim/commands.go) has no entry", name)
			continue
		}
		want := !m.Server().IsReadOnlyCommand(name) && !slices.Contains(notWrites, name) && !slices.Contains(refused, name)
		if got := c.flags&cmdWrite != 0; got != want {
			t.Errorf("%s: write = %v, the node has always said %v", name, got, want)
		}
		if c.flags&(cmdRead|cmdWrite) == cmdRead|cmdWrite {
			t.Errorf("%s: both read and write", name)
		}
	}
	// The commands the node itself serves or refuses.
	for _, name := range append(refused, "WAIT", "INFO", "PUBLISH", "SHUTDOWN", "DEBUG", "BLPOP", "XREAD") {
		if _, ok := commands[name]; !ok {
			t.Errorf("%s: served by the node, but not in the command table", name)
		}
	}
	for name, c := range commands {
		if c.flags&cmdRefused == 0 && name != "SHUTDOWN" && !slices.Contains(names, name) {
			t.Errorf("%s: in the table, but neither miniredis nor the node serves it", name)
		}
	}
	seen := map[string]bool{}
	for _, g := range commandGroups {
		for _, name := range strings.Fields(g.names) {
			if seen[name] {
				t.Errorf("%s: in two groups of the table", name)
			}
			seen[name] = true
		}
	}
	if got := lookupCommand("NOSUCHCMD"); got != unknownCommand {
		t.Errorf("an unknown command: %+v, want %+v", got, unknownCommand)
	}
}

// TestCommandTableRedisFlags checks entries against Redis 7's documented
// flags and key specs (COMMAND INFO).
func TestCommandTableRedisFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags cmdFlag // flags it must have
		args  string  // a call of it
		keys  string  // the keys in args
	}{
		{"GET", cmdRead, "GET k", "k"},
		{"EXISTS", cmdRead, "EXISTS a b c", "a b c"},
		{"MGET", cmdRead, "MGET a b", "a b"},
		{"SET", cmdWrite, "SET k v PX 30000", "k"},
		{"HSET", cmdWrite, "HSET h f v", "h"},
		{"DEL", cmdWrite, "DEL a b", "a b"},
		{"MSET", cmdWrite, "MSET a 1 b 2", "a b"},
		{"RENAME", cmdWrite, "RENAME a b", "a b"},
		{"BITOP", cmdWrite, "BITOP AND d a b", "d a b"},
		{"EVAL", cmdScript | cmdScriptBody | cmdWrite, "EVAL body 2 a b x", "a b"},
		{"EVALSHA", cmdScript, "EVALSHA sha 2 a b x", "a b"},
		{"EVALSHA_RO", cmdScript | cmdRead, "EVALSHA_RO sha 1 a x", "a"},
		{"EVAL_RO", cmdScript | cmdScriptBody | cmdRead, "EVAL_RO body 0 x", ""},
		{"MULTI", cmdTx, "MULTI", ""},
		{"EXEC", cmdTx, "EXEC", ""},
		{"WATCH", cmdTx, "WATCH a b", "a b"},
		{"UNWATCH", cmdTx, "UNWATCH", ""},
		{"SUBSCRIBE", cmdPubSub | cmdRefused, "SUBSCRIBE ch", ""},
		{"PUBLISH", cmdPubSub, "PUBLISH ch msg", ""},
		{"BLPOP", cmdBlocking | cmdWrite | cmdRefused, "BLPOP a b 0", "a b"},
		{"BZMPOP", cmdBlocking | cmdWrite | cmdRefused, "BZMPOP 0 2 a b MIN", "a b"},
		{"SPOP", cmdWrite | cmdRandom, "SPOP s", "s"},
		{"SWAPDB", cmdWrite | cmdSwapsDB, "SWAPDB 0 1", ""},
		{"SHUTDOWN", cmdAdmin | cmdRefused, "SHUTDOWN", ""},
	} {
		c := lookupCommand(tc.name)
		if c.flags&tc.flags != tc.flags {
			t.Errorf("%s: flags %b lack %b", tc.name, c.flags, tc.flags)
		}
		if c.flags&cmdScript == 0 && c.flags&(cmdScriptBody) != 0 {
			t.Errorf("%s: a script body but no script", tc.name)
		}
		if got := strings.Join(c.keys(strings.Fields(tc.args)), " "); got != tc.keys {
			t.Errorf("%s: keys of %q = %q, want %q", tc.name, tc.args, got, tc.keys)
		}
	}
	if c := lookupCommand("EVALSHA"); c.numkeys != 2 {
		t.Errorf("EVALSHA: numkeys at %d, want 2", c.numkeys)
	}
}

// TestCommandKeysMalformed: a command's keys and its trace subject from
// malformed or short argument lists, as the node has always read them.
func TestCommandKeysMalformed(t *testing.T) {
	for _, tc := range []struct{ args, keys, subject string }{
		{"GET", "", ""},
		{"EVAL body", "", ""},
		{"EVAL body x a", "", "a"}, // not a count: no keys, but the trace names args[3]
		{"EVAL body -1 a", "", "a"},
		{"EVAL body 3 a b", "", "a"}, // fewer keys than counted
		{"EVAL body 0 a", "", ""},
		{"EVAL body 9223372036854775807 a", "", "a"}, // 3+count overflows
		{"MSET a 1 b", "a b", "a"},
		{"DEL", "", ""},
		{"HELLO 2", "2", "2"},
		{"INFO replication", "", "replication"},
		{"PUBLISH ch msg", "", "ch"},
		{"PING hi", "", ""},
		{"WAIT 1 0", "", ""},
		{"WATCH a", "a", "a"},
		{"NOSUCHCMD a b", "a", "a"},
	} {
		args := strings.Fields(tc.args)
		c := lookupCommand(args[0])
		if got := strings.Join(c.keys(args), " "); got != tc.keys {
			t.Errorf("keys of %q = %q, want %q", tc.args, got, tc.keys)
		}
		if got := c.subject(args); got != tc.subject {
			t.Errorf("subject of %q = %q, want %q", tc.args, got, tc.subject)
		}
	}
}

// TestMultiKeyWriteReplicates: a write's keys come from its entry, so a
// replica receives every key the write changed, RENAME's destination too.
func TestMultiKeyWriteReplicates(t *testing.T) {
	w := New(Config{Seed: 1, Network: DefaultNetwork()})
	m := w.AddNode("redis")
	w.SetMaster("redis")
	w.SetReplication(ReplicationConfig{LagMin: ms, LagMax: ms})
	r := w.AddNode("redis-r1")
	w.AddReplica(m, r)
	w.AddProcess("c1").Go("main", func(th *Thread) {
		th.Call(Master, "MSET", "a", "1", "c", "3")
		th.Call(Master, "RENAME", "a", "b")
		th.Call(Master, "COPY", "c", "d")
		th.Sleep(time.Second)
	})
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]bool{"a": false, "b": true, "c": true, "d": true} {
		if got := r.Miniredis().Exists(k); got != want {
			t.Errorf("replica: key %s exists = %v, want %v (master: %v)", k, got, want, m.Miniredis().Exists(k))
		}
	}
}

// TestEvalHugeKeyCount: a key count whose sum with its position
// overflows is refused by the node as by Redis, not a panic.
func TestEvalHugeKeyCount(t *testing.T) {
	r := NewStandalone(1).Do(0, "EVAL", "return 1", "9223372036854775807", "a")
	if r.Kind != '-' || !strings.Contains(r.Str, "greater than number of args") {
		t.Fatalf("reply %v, want the key-count error", r)
	}
}
