package sim

import (
	"errors"
	"strconv"
	"strings"

	"github.com/locksim/locksim/sim/luafast"
)

// Reply is one RESP2 reply. miniredis's own parser rejects arrays holding
// an error element (EXEC can return those), so the sim parses RESP itself.
type Reply struct {
	Kind  byte    // '+' status, '-' error, ':' integer, '$' bulk, '*' array, 0 nil
	Str   string  // status, error or bulk text
	Int   int64   // integer value
	Array []Reply // array elements
}

// IsNil reports a nil bulk or nil array.
func (r Reply) IsNil() bool { return r.Kind == 0 }

// IsErr reports an error reply.
func (r Reply) IsErr() bool { return r.Kind == '-' }

// String renders the reply the way redis-cli does, compactly.
func (r Reply) String() string {
	switch r.Kind {
	case 0:
		return "(nil)"
	case '+':
		return r.Str
	case '-':
		return "(error) " + r.Str
	case ':':
		if isSmallInt(r.Int) {
			return smallInts[r.Int+2]
		}
		var b [32]byte
		return string(appendIntText(b[:0], r.Int))
	case '$':
		return strconv.Quote(r.Str)
	case '*':
		parts := make([]string, len(r.Array))
		for i, e := range r.Array {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "?"
}

// smallInts are the integer replies -2 to 9 as traced (PTTL's -2 and -1,
// counts and flags), shared instead of built per reply.
var smallInts = func() []string {
	out := make([]string, 12)
	for i := range out {
		out[i] = "(integer) " + strconv.Itoa(i-2)
	}
	return out
}()

// isSmallInt reports whether smallInts holds n's text.
func isSmallInt(n int64) bool { return n >= -2 && n < int64(len(smallInts))-2 }

// appendIntText appends an integer reply's text, as redis-cli shows it.
func appendIntText(b []byte, n int64) []byte {
	return strconv.AppendInt(append(b, "(integer) "...), n, 10)
}

var errBadRESP = errors.New("malformed RESP reply")

// ParseReply parses one complete RESP2 reply from b.
func ParseReply(b []byte) (Reply, error) {
	r, rest, err := parseReply(b)
	if err != nil {
		return Reply{}, err
	}
	if len(rest) != 0 {
		return Reply{}, errBadRESP
	}
	return r, nil
}

func parseReply(b []byte) (Reply, []byte, error) {
	if len(b) < 3 {
		return Reply{}, nil, errBadRESP
	}
	i := indexCRLF(b)
	if i < 0 {
		return Reply{}, nil, errBadRESP
	}
	head, rest := b[1:i], b[i+2:]
	switch b[0] {
	case '+', '-':
		return Reply{Kind: b[0], Str: statusText(head)}, rest, nil
	case ':':
		n, err := strconv.ParseInt(string(head), 10, 64)
		if err != nil {
			return Reply{}, nil, errBadRESP
		}
		return Reply{Kind: ':', Int: n}, rest, nil
	case '$':
		n, err := strconv.Atoi(string(head))
		if err != nil {
			return Reply{}, nil, errBadRESP
		}
		if n < 0 {
			return Reply{}, rest, nil
		}
		if len(rest) < n+2 {
			return Reply{}, nil, errBadRESP
		}
		return Reply{Kind: '$', Str: string(rest[:n])}, rest[n+2:], nil
	case '*':
		n, err := strconv.Atoi(string(head))
		if err != nil {
			return Reply{}, nil, errBadRESP
		}
		if n < 0 {
			return Reply{}, rest, nil
		}
		arr := make([]Reply, n)
		for k := range arr {
			var e Reply
			e, rest, err = parseReply(rest)
			if err != nil {
				return Reply{}, nil, err
			}
			arr[k] = e
		}
		return Reply{Kind: '*', Array: arr}, rest, nil
	}
	return Reply{}, nil, errBadRESP
}

// statusText is a status or error line as a string, the usual ones
// shared rather than copied.
func statusText(b []byte) string {
	switch string(b) {
	case "OK":
		return "OK"
	case "QUEUED":
		return "QUEUED"
	case "PONG":
		return "PONG"
	}
	return string(b)
}

func indexCRLF(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return i
		}
	}
	return -1
}

// valueReply is the Reply that parsing the RESP of v would give.
func valueReply(v luafast.Value) Reply {
	switch v.Kind {
	case ':':
		return Reply{Kind: ':', Int: int64(v.Int)}
	case '*':
		arr := make([]Reply, len(v.Ints))
		for i, n := range v.Ints {
			arr[i] = Reply{Kind: ':', Int: int64(n)}
		}
		return Reply{Kind: '*', Array: arr}
	case '+':
		return Reply{Kind: '+', Str: v.Status}
	}
	return Reply{} // 'n': nil
}
