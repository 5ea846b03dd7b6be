package bridge

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/locksim/locksim/sim"
)

// errPartial is a command not yet wholly written.
var errPartial = errors.New("partial command")

// parseCommand reads one client command (a RESP array of bulk strings)
// from the front of b and returns it with the bytes it used. The
// arguments are slices of one string, the command's bytes: one
// allocation for the command instead of one per argument.
func parseCommand(b []byte) ([]string, int, error) {
	line, pos, err := readLine(b, 0)
	if err != nil {
		return nil, 0, err
	}
	if len(line) < 2 || line[0] != '*' {
		return nil, 0, errors.New("bridge: a client sent something other than a RESP array")
	}
	n, err := strconv.Atoi(string(line[1:]))
	if err != nil || n < 1 {
		return nil, 0, errors.New("bridge: bad RESP array length")
	}
	type span struct{ at, n int }
	var small [8]span
	spans := small[:0]
	for range n {
		var hdr []byte
		hdr, pos, err = readLine(b, pos)
		if err != nil {
			return nil, 0, err
		}
		if len(hdr) < 2 || hdr[0] != '$' {
			return nil, 0, errors.New("bridge: a command argument is not a bulk string")
		}
		l, err := strconv.Atoi(string(hdr[1:]))
		if err != nil || l < 0 {
			return nil, 0, errors.New("bridge: bad bulk string length")
		}
		if len(b) < pos+l+2 {
			return nil, 0, errPartial
		}
		spans = append(spans, span{pos, l})
		pos += l + 2
	}
	all := string(b[:pos])
	args := make([]string, n)
	for i, sp := range spans {
		args[i] = all[sp.at : sp.at+sp.n]
	}
	return args, pos, nil
}

// readLine returns the line starting at pos (without CRLF) and the
// position after it.
func readLine(b []byte, pos int) ([]byte, int, error) {
	i := bytes.Index(b[pos:], []byte("\r\n"))
	if i < 0 {
		return nil, 0, errPartial
	}
	return b[pos : pos+i], pos + i + 2, nil
}

// appendReply renders r the way Redis sends it over RESP2.
func appendReply(b []byte, r sim.Reply) []byte {
	switch r.Kind {
	case '+', '-':
		b = append(b, r.Kind)
		b = append(b, r.Str...)
	case ':':
		b = append(b, ':')
		b = strconv.AppendInt(b, r.Int, 10)
	case '$':
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(r.Str)), 10)
		b = append(b, "\r\n"...)
		b = append(b, r.Str...)
	case '*':
		b = append(b, '*')
		b = strconv.AppendInt(b, int64(len(r.Array)), 10)
		b = append(b, "\r\n"...)
		for _, e := range r.Array {
			b = appendReply(b, e)
		}
		return b
	default:
		b = append(b, "$-1"...)
	}
	return append(b, "\r\n"...)
}

// bulks is an array reply of bulk strings.
func bulks(s ...string) sim.Reply {
	r := sim.Reply{Kind: '*', Array: make([]sim.Reply, len(s))}
	for i, v := range s {
		r.Array[i] = sim.Reply{Kind: '$', Str: v}
	}
	return r
}
