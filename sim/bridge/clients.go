package bridge

import (
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// poolSize is go-redis's pool size for bridged clients: fixed (the
// default follows GOMAXPROCS) and larger than a run can use. go-redis
// waits for a free connection with timers from a process-wide sync.Pool;
// a timer made in one synctest bubble and reused in another is a fatal
// error, so the wait must never happen: a client never runs out of
// connections in the sim, where with the default it could wait up to its
// PoolTimeout and fail with "connection pool timeout".
const poolSize = 1000

// newClients builds th's go-redis clients for the topology. They speak
// RESP2 (the sim's nodes answer in RESP2), send no CLIENT SETINFO and no
// maintenance-notification handshake; everything else is go-redis's
// default.
func (b *Bridge) newClients(th *thread) *Clients {
	dial := b.dialer(th)
	off := &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	opts := func(addr string) *redis.Options {
		return &redis.Options{Addr: addr, Protocol: 2, Dialer: dial, DisableIdentity: true,
			PoolSize: poolSize, MaintNotificationsConfig: off}
	}
	c := &Clients{}
	switch b.topo.Kind {
	case Sentinel:
		c.Client = redis.NewFailoverClient(&redis.FailoverOptions{MasterName: MasterName,
			SentinelAddrs: []string{SentinelAddr}, Protocol: 2, Dialer: dial, DisableIdentity: true,
			PoolSize: poolSize})
	case Pool:
		for _, n := range b.topo.Nodes {
			c.Pool = append(c.Pool, redis.NewClient(opts(b.addr[n])))
		}
	default:
		c.Client = redis.NewClient(opts(b.addr[b.topo.Nodes[0]]))
	}
	if c.Client != nil {
		th.proc.clients = append(th.proc.clients, c.Client)
	}
	th.proc.clients = append(th.proc.clients, c.Pool...)
	return c
}
