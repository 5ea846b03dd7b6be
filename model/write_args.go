package model

import (
	"strconv"
	"strings"
)

// The commands that write to a fenced resource carry the writer's token
// where WriteToken finds it: the one place that says where it goes, for
// the protocols that send the writes and the checker that reads them.

// FencedInsert is the unique-name database's INSERT of name under token
// (no token: an unfenced INSERT).
func FencedInsert(name, token string) []string {
	if token == "" {
		return []string{"INSERT", name}
	}
	return []string{"INSERT", name, token}
}

// FencedEval is EVAL of a fenced storage script over keys, with the token
// as ARGV[1] and then args.
func FencedEval(script string, keys []string, token string, args ...string) []string {
	out := make([]string, 0, 4+len(keys)+len(args))
	out = append(out, "EVAL", script, strconv.Itoa(len(keys)))
	out = append(out, keys...)
	out = append(out, token)
	return append(out, args...)
}

// WriteToken is the token a fenced write carries (FencedInsert's or
// FencedEval's), or "".
func WriteToken(args []string) string {
	switch {
	case len(args) > 2 && strings.EqualFold(args[0], "INSERT"):
		return args[2]
	case len(args) > 3 && (strings.EqualFold(args[0], "EVAL") || strings.EqualFold(args[0], "EVALSHA")):
		if n, err := strconv.Atoi(args[2]); err == nil && n >= 0 && 3+n < len(args) {
			return args[3+n]
		}
	}
	return ""
}
