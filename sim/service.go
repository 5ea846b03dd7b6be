package sim

import "github.com/locksim/locksim/sim/trace"

// Service is a non-Redis party reached over the network: the application's
// database, a fenced storage. Its handler runs on arrival of each request.
type Service struct {
	w       *World
	Name    string
	handler func(client string, args []string) string
}

// AddService adds a service whose handler answers each request.
func (w *World) AddService(name string, handler func(client string, args []string) string) *Service {
	s := &Service{w: w, Name: name, handler: handler}
	w.services[name] = s
	return s
}

func (s *Service) handle(t *Thread, args []string) Reply {
	res := s.handler(t.Client(), args)
	key := ""
	if len(args) > 1 {
		key = args[1]
	}
	s.w.rec.event(trace.Service(s.Name, t.Client(), key, args, res))
	return Reply{Kind: '$', Str: res}
}
