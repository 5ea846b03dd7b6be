package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var errParsed = errors.New("flags parsed")

// FuzzFlags parses arbitrary command lines (one argument per line) with
// every command's flags: the answer is usage (exit 0), one line of error
// (exit 2), or a parse that went through; never a panic or a second line.
func FuzzFlags(f *testing.F) {
	for _, args := range []string{
		"run\n--protocol\nsetnx-del\n--seed\n7\n--faults\ngc-pause,partition",
		"run\n--fault\ngc-pause:c1@1000+70000\n--lease-ms\n60000",
		"explore\n--protocol\nredisson\n--runs\n10\n--shard\n2/3\n--out\n/tmp/x",
		"matrix\n--runs\n3\n--protocols\nsetnx-del,redlock",
		"view\nt.json\n-o\nt.html",
		"shrink\n--budget=5\nt.json",
		"merge\na\nb\n--json",
		"run\n--intensity\nNaN\n--clients\n-1",
		"help\nrun",
		"run\n--help",
	} {
		f.Add(args)
	}
	afterParse = func() error { return errParsed }
	defer func() { afterParse = nil }()
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\n")
		if _, ok := lookupCommand(args[0]); !ok || args[0] == "list" && len(args) == 1 {
			return
		}
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		msg := errb.String()
		switch {
		case code == exitOK && msg == "":
		case code == exitUsage && strings.Count(msg, "\n") == 1 && strings.HasPrefix(msg, "locksim"):
		default:
			t.Fatalf("%q: exit %d, stderr %q", args, code, msg)
		}
	})
}
