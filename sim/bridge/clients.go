package bridge

import (
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// poolSize fixes go-redis's pool size, whose default follows GOMAXPROCS.
const poolSize = 10

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
