package sim

import "unsafe"

// allocator makes what a run creates by the dozen and drops at its end:
// events, threads, processes, calls, semaphores and their waits,
// subscriptions, short trace texts and traced argument lists. Each would
// otherwise be an allocation of its own; here they come from arrays
// allocated a few at a time, and events that ran are reused. Nothing it
// hands out outlives the run, except texts and argument lists, which the
// trace keeps (and never writes to). A World owns one, and a Pool keeps
// it for a later run once the world is released (its arrays cleared,
// its texts left to the trace); this file and pool.go are the only
// places the world's memory tricks live.
type allocator struct {
	events     chunk[event]
	ran        []*event // events that ran or were disarmed, for reuse
	threads    chunk[Thread]
	procs      chunk[Process]
	rpcs       chunk[rpc]
	sems       chunk[Sem]
	semWaiters chunk[semWaiter]
	subs       chunk[Subscription]
	subLists   chunk[[2]*Subscription]
	text       []byte // free room of the current text block
	args       argTable
}

// reset makes a the allocator of a new run: every array it handed out
// is cleared and handed out again, and texts and argument lists start
// afresh (the old ones belong to the last run's trace).
func (a *allocator) reset() {
	a.events.reset()
	clear(a.ran)
	a.ran = a.ran[:0]
	a.threads.reset()
	a.procs.reset()
	a.rpcs.reset()
	a.sems.reset()
	a.semWaiters.reset()
	a.subs.reset()
	a.subLists.reset()
	a.text, a.args = nil, argTable{}
}

// event returns a cleared event, reusing one that ran: a run schedules
// thousands of events, of which a few dozen wait at a time.
func (a *allocator) event() *event {
	if n := len(a.ran); n > 0 {
		e := a.ran[n-1]
		a.ran = a.ran[:n-1]
		return e
	}
	return a.events.next()
}

// reuse takes back an event nothing refers to any more.
func (a *allocator) reuse(e *event) {
	*e = event{}
	a.ran = append(a.ran, e)
}

func (a *allocator) thread() *Thread                 { return a.threads.next() }
func (a *allocator) process() *Process               { return a.procs.next() }
func (a *allocator) rpc() *rpc                       { return a.rpcs.next() }
func (a *allocator) sem() *Sem                       { return a.sems.next() }
func (a *allocator) semWaiter() *semWaiter           { return a.semWaiters.next() }
func (a *allocator) subscription() *Subscription     { return a.subs.next() }
func (a *allocator) subscriberList() []*Subscription { return a.subLists.next()[:0] }

// textBlock is the size of the blocks short trace texts are cut from.
const textBlock = 512

// textRoom is free room for a text of up to n bytes, to append to and
// then pass to keepText. A block is only appended to, so a text cut from
// it never changes.
func (a *allocator) textRoom(n int) []byte {
	if cap(a.text) < n {
		a.text = make([]byte, 0, max(textBlock, n))
	}
	return a.text
}

// keepText is b, appended to textRoom's space, as a text; the room after
// it stays free.
func (a *allocator) keepText(b []byte) string {
	a.text = b[len(b):]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// replyText is r.String(), an integer's text cut from a text block.
func (a *allocator) replyText(r Reply) string {
	if r.Kind != ':' || isSmallInt(r.Int) {
		return r.String()
	}
	return a.keepText(appendIntText(a.textRoom(32), r.Int))
}

// chunk hands out zeroed values of T from arrays allocated a few at a
// time. The arrays grow from chunkMin values to about chunkBytes, so a
// short run wastes little. The first chunkKept arrays serve again after
// a reset; later ones are left to the collector as soon as nothing
// points into them, so a long run holds no more than it uses.
type chunk[T any] struct {
	arrays [][]T // the arrays a reset hands out again
	used   int   // of arrays, those handed out from
	rest   []T
	last   int // the length of the last array
}

const (
	chunkMin   = 4
	chunkBytes = 4096
	chunkKept  = 32
)

// next returns a zeroed T.
func (c *chunk[T]) next() *T {
	if len(c.rest) == 0 {
		if c.used < len(c.arrays) {
			c.rest = c.arrays[c.used]
			c.used++
		} else {
			var v T
			c.last = min(max(2*c.last, chunkMin), max(chunkBytes/int(unsafe.Sizeof(v)), chunkMin))
			c.rest = make([]T, c.last)
			if len(c.arrays) < chunkKept {
				c.arrays = append(c.arrays, c.rest)
				c.used++
			}
		}
	}
	v := &c.rest[0]
	c.rest = c.rest[1:]
	return v
}

// reset clears the arrays handed out, to hand them out again.
func (c *chunk[T]) reset() {
	for _, a := range c.arrays[:c.used] {
		clear(a)
	}
	c.used, c.rest = 0, nil
	if len(c.arrays) > 0 {
		c.last = len(c.arrays[len(c.arrays)-1])
	}
}
