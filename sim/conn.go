package sim

// firstReconnect numbers the connections a thread opens after its first
// one to a node: above every thread id, and outside code's connections
// are negative (Node.Serve).
const firstReconnect = 1 << 40

// connTo is the thread's connection to node: its first one is numbered
// by the thread's id, a later one by dropConn.
func (t *Thread) connTo(node string) int {
	if c, ok := t.conns[node]; ok {
		return c
	}
	return t.id
}

// dropConn closes the thread's connection to node after a command on it
// timed out, as Jedis and go-redis discard a connection whose read timed
// out: the next command opens a new one, so a MULTI or WATCH whose reply
// was lost does not hold over the thread's later commands. A request
// still in flight runs on the old connection.
func (t *Thread) dropConn(node string) {
	if t.conns == nil {
		t.conns = map[string]int{}
	}
	t.w.reconnects++
	t.conns[node] = firstReconnect + t.w.reconnects
}
