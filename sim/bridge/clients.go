package bridge

import (
	"github.com/redis/go-redis/v9"
)

// poolSize is go-redis's pool size for bridged clients: fixed (the
// default follows GOMAXPROCS) and larger than a run can use. go-redis
// waits for a free connection with timers from a process-wide sync.Pool;
// a timer made in one synctest bubble and reused in another is a fatal
// error, so the wait must never happen: a client never runs out of
// connections in the sim, where with the default it could wait up to its
// PoolTimeout and fail with "connection pool timeout".
const poolSize = 1000

// readBufferSize is a bridged connection's read buffer when the user's
// options leave it unset: go-redis's 32 KiB saves system calls a bridged
// connection never makes, and a longer reply line is read whole anyway.
// The write buffer keeps its size: it decides which pipelined commands
// travel together.
const readBufferSize = 4096

// newClients builds th's go-redis clients for the topology, with the
// topology's Options (clientOptions): they speak RESP2 (the sim's nodes
// answer in RESP2), send no CLIENT SETINFO and no
// maintenance-notification handshake.
func (b *Bridge) newClients(th *thread) *Clients {
	dial := b.dialer(th)
	user := b.topo.Options
	c := &Clients{}
	client := func(addr string) *redis.Client {
		rc := redis.NewClient(clientOptions(user, addr, dial))
		gate(rc, user)
		return rc
	}
	switch b.topo.Kind {
	case Sentinel:
		fc := redis.NewFailoverClient(failoverOptions(user, b.topo.Failover, dial))
		if f := b.topo.Failover; f != nil {
			gate(fc, &redis.Options{PoolSize: f.PoolSize})
		} else {
			gate(fc, user)
		}
		c.Client = fc
	case Pool:
		for _, n := range b.topo.Nodes {
			c.Pool = append(c.Pool, client(b.addr[n]))
		}
	default:
		c.Client = client(b.addr[b.topo.Nodes[0]])
	}
	if c.Client != nil {
		th.proc.clients = append(th.proc.clients, c.Client)
	}
	th.proc.clients = append(th.proc.clients, c.Pool...)
	return c
}
