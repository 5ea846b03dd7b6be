package sim

import "github.com/locksim/locksim/sim/trace"

// packer packs a long run's events on another core while the run goes
// on: the recorder hands it full batches and takes back emptied ones.
// The bytes are those the recorder would pack itself, in the same order;
// while it runs, the packer alone touches the recorder's stream.
type packer struct {
	batch []trace.Event // being filled by the recorder
	full  chan []trace.Event
	empty chan []trace.Event
	done  chan struct{}
}

// packAside is the number of packed events from which a run packs aside
// (tests lower it); packBatch the events handed over at a time.
var packAside = trace.LongRun

const (
	packBatch   = 4096
	packBatches = 3
)

func (r *recorder) startPacker() {
	p := &packer{full: make(chan []trace.Event, packBatches), empty: make(chan []trace.Event, packBatches),
		done: make(chan struct{})}
	for range packBatches - 1 {
		p.empty <- make([]trace.Event, 0, packBatch)
	}
	p.batch = make([]trace.Event, 0, packBatch)
	r.pk = p
	go func() {
		defer close(p.done)
		for b := range p.full {
			for i := range b {
				r.pack(&b[i])
			}
			p.empty <- b[:0]
		}
	}()
}

func (p *packer) add(e *trace.Event) {
	p.batch = append(p.batch, *e)
	if len(p.batch) == packBatch {
		p.full <- p.batch
		p.batch = <-p.empty
	}
}

// stopPacking waits for the packer to pack every event handed to it, so
// that the recorder's stream is its own again.
func (r *recorder) stopPacking() {
	p := r.pk
	if p == nil {
		return
	}
	if len(p.batch) > 0 {
		p.full <- p.batch
	}
	close(p.full)
	<-p.done
	r.pk = nil
}
