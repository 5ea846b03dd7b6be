package luafast

import (
	"testing"
	"time"
)

// benchNode returns a node with a lock "lock" held by "u1:1".
func benchNode(b *testing.B, withEngine bool) (*node, string) {
	n := newNode(b, withEngine)
	sha := n.do("SCRIPT", "LOAD", redissonAcquire)
	sha = sha[len(sha)-42 : len(sha)-2] // strip "$40\r\n" and "\r\n"
	if got := n.do("EVALSHA", sha, "1", "lock", "30000", "u1:1"); got != "$-1\r\n" {
		b.Fatalf("acquire: %q", got)
	}
	return n, sha
}

// BenchmarkRedissonAcquire measures one Redisson acquire script run through
// Server().Dispatch: re-entrant (exists, hexists, hincrby, pexpire) and
// contended (exists, hexists, pttl), with the Engine and with miniredis.
func BenchmarkRedissonAcquire(b *testing.B) {
	for _, bc := range []struct {
		name   string
		engine bool
		cmd    string
		owner  string
		want   string
	}{
		{"engine/EVALSHA/reentrant", true, "EVALSHA", "u1:1", "$-1\r\n"},
		{"engine/EVALSHA/contended", true, "EVALSHA", "u2:1", ":30000\r\n"},
		{"engine/EVAL/reentrant", true, "EVAL", "u1:1", "$-1\r\n"},
		{"miniredis/EVALSHA/reentrant", false, "EVALSHA", "u1:1", "$-1\r\n"},
		{"miniredis/EVALSHA/contended", false, "EVALSHA", "u2:1", ":30000\r\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n, sha := benchNode(b, bc.engine)
			body := sha
			if bc.cmd == "EVAL" {
				body = redissonAcquire
			}
			benchDispatch(b, n, []string{bc.cmd, body, "1", "lock", "30000", bc.owner}, bc.want)
		})
	}
}

// BenchmarkPlainCommand is a plain command dispatch, for reference.
func BenchmarkPlainCommand(b *testing.B) {
	n, _ := benchNode(b, true)
	benchDispatch(b, n, []string{"HEXISTS", "lock", "u1:1"}, ":1\r\n")
}

// benchDispatch measures dispatching args on n, whose last reply must be
// want.
func benchDispatch(b *testing.B, n *node, args []string, want string) {
	srv := n.m.Server()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n.buf.Reset()
		srv.Dispatch(n.peer, args)
		n.peer.Flush()
	}
	b.StopTimer()
	if got := n.buf.String(); got != want {
		b.Fatalf("reply %q, want %q", got, want)
	}
}

// BenchmarkRedissonCycle is one simulated run's script work on a node: a
// fresh Engine (the sim builds one per node per run), five clients try the
// lock with EVAL (one wins, four are told the TTL), the owner renews and
// releases it (publishing the unlock), and the Engine is closed.
func BenchmarkRedissonCycle(b *testing.B) {
	n := newNode(b, true)
	n.m.SetTime(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)) // PTTL replies stay 30000
	owners := []string{"c1:1", "c2:1", "c3:1", "c4:1", "c5:1"}
	var script [][]string
	for _, o := range owners {
		script = append(script, []string{"EVAL", redissonAcquire, "1", "lock", "30000", o})
	}
	script = append(script,
		[]string{"EVAL", redissonRenew, "1", "lock", "30000", owners[0]},
		[]string{"EVAL", redissonRelease, "2", "lock", "chan", "0", "30000", owners[0]})
	want := "$-1\r\n:30000\r\n:30000\r\n:30000\r\n:30000\r\n:1\r\n:1\r\n"
	srv := n.m.Server()
	b.ReportAllocs()
	b.ResetTimer()
	var cache Cache
	for i := 0; i < b.N; i++ {
		n.eng = New(n.m, &cache)
		n.buf.Reset()
		for _, args := range script {
			srv.Dispatch(n.peer, args)
		}
		n.peer.Flush()
		n.eng.Close()
		if i == 0 && n.buf.String() != want {
			b.Fatalf("replies %q, want %q", n.buf.String(), want)
		}
	}
}

// BenchmarkNestedCalls runs scripts making 0, 1 and 4 redis.call HEXISTS:
// the difference per call, against BenchmarkPlainCommand's HEXISTS, is
// what the nested path adds to the command itself.
func BenchmarkNestedCalls(b *testing.B) {
	for _, bc := range []struct {
		name, src string
	}{
		{"0", "return 1"},
		{"1", "redis.call('hexists', KEYS[1], ARGV[1]) return 1"},
		{"4", "redis.call('hexists', KEYS[1], ARGV[1]) redis.call('hexists', KEYS[1], ARGV[1]) " +
			"redis.call('hexists', KEYS[1], ARGV[1]) redis.call('hexists', KEYS[1], ARGV[1]) return 1"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n, _ := benchNode(b, true)
			benchDispatch(b, n, []string{"EVAL", bc.src, "1", "lock", "u1:1"}, ":1\r\n")
		})
	}
}

// BenchmarkTwinAcquire is Redisson 3.16's acquire script (a registered
// body) by EVALSHA, its native twin against the Lua VM.
func BenchmarkTwinAcquire(b *testing.B) {
	for _, native := range []bool{true, false} {
		for _, bc := range []struct{ name, owner, want string }{
			{"reentrant", "u1:1", "$-1\r\n"},
			{"contended", "u2:1", ":30000\r\n"},
		} {
			name := "lua/" + bc.name
			if native {
				name = "native/" + bc.name
			}
			b.Run(name, func(b *testing.B) {
				n := newNode(b, true)
				if !native {
					n.eng.SetScripts(nil)
				}
				sha := newScript(RedissonLock316).sha
				n.do("SCRIPT", "LOAD", RedissonLock316)
				if got := n.do("EVALSHA", sha, "1", "lock", "30000", "u1:1"); got != "$-1\r\n" {
					b.Fatalf("acquire: %q", got)
				}
				benchDispatch(b, n, []string{"EVALSHA", sha, "1", "lock", "30000", bc.owner}, bc.want)
			})
		}
	}
}
