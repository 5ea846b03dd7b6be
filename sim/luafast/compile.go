package luafast

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// script is one script body with its compiled form (compiled lazily).
type script struct {
	src     string
	sha     string
	fn      *lua.LFunction // main chunk, reused across calls; nil until compiled
	pure    bool           // cannot modify the globals table (see isPure)
	inert   bool           // cannot modify any table (see isInert)
	exposed bool           // in its engine's bySHA
	fast    FastPath       // the body's fast path (SetScripts), or nil
	c       *compiled      // nil until looked up in protos
}

// newScript returns a script for src.
func newScript(src string) *script { return &script{src: src, sha: sha1Hex(src)} }

// newScript is newScript with the fast path and SHA1 of the engine's
// scripts (SetScripts) when src is one of them, and the compiled script
// of its cache when another engine compiled src before.
func (e *Engine) newScript(src string) *script {
	if f, ok := e.fastScript(src); ok {
		return &script{src: src, sha: f.SHA1(), fast: f.FastPath}
	}
	if c, ok := e.cache.protos.Load(src); ok {
		c := c.(*compiled)
		return &script{src: src, sha: c.sha, c: c}
	}
	return newScript(src)
}

// SHA1 is a script body's name for EVALSHA and SCRIPT EXISTS (lower-case
// hex).
func SHA1(src string) string { return sha1Hex(src) }

// SHA1 is the package's SHA1, from the engine's scripts and its cache
// first.
func (e *Engine) SHA1(src string) string {
	if f, ok := e.fastScript(src); ok {
		return f.SHA1()
	}
	if c, ok := e.cache.protos.Load(src); ok {
		return c.(*compiled).sha
	}
	return SHA1(src)
}

func sha1Hex(src string) string {
	h := sha1.Sum([]byte(src))
	return hex.EncodeToString(h[:])
}

// compiled is a script body's compiled prototype, shared by every engine:
// prototypes are read-only once compiled.
type compiled struct {
	sha   string
	proto *lua.FunctionProto
	pure  bool
	inert bool // provably changes no Lua table (see isInert)
	err   error
}

// compile parses and compiles s exactly like miniredis does (same chunk
// names, so error texts and tracebacks match), through cache when given.
func (s *script) compile(cache *Cache) error {
	if s.fn != nil {
		return nil
	}
	c := s.c
	if c == nil {
		if v, ok := cache.lookup(s.src); ok {
			c = v
		} else {
			c = compileProto(s.src)
			c.sha = s.sha
			cache.store(s.src, c)
		}
		s.c = c
	}
	if c.err != nil {
		return c.err
	}
	s.fn = &lua.LFunction{Proto: c.proto, Upvalues: []*lua.Upvalue{}}
	s.pure, s.inert = c.pure, c.inert
	return nil
}

func compileProto(src string) *compiled {
	chunk, err := parse.Parse(strings.NewReader(src), "<string>")
	if err != nil {
		return &compiled{err: err}
	}
	proto, err := lua.Compile(chunk, "")
	if err != nil {
		return &compiled{err: err}
	}
	// The main chunk is vararg, so every call would build a Lua 5.0 `arg`
	// table. The main chunk has no `arg` local, so the table is unreachable:
	// skip building it.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	return &compiled{proto: proto, pure: isPure(proto), inert: isInert(proto)}
}

// inertGlobals are the globals an inert script may read: none of them can
// be used to change a table that outlives the call.
var inertGlobals = map[string]bool{
	"redis": true, "server": true, "KEYS": true, "ARGV": true, "tonumber": true, "tostring": true,
	"type": true, "string": true, "math": true,
}

// isInert reports whether a compiled chunk provably leaves every Lua table
// as it found it: no table or global store, no closure store, and only
// inertGlobals read. A state that ran only inert scripts goes back to the
// pool without being compared against its snapshot.
func isInert(p *lua.FunctionProto) bool {
	for _, inst := range p.Code {
		switch int(inst >> opcodeShift) {
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETLIST:
			return false
		case lua.OP_GETGLOBAL:
			bx := int(inst & bxMask)
			if bx >= len(p.Constants) {
				return false
			}
			if name, ok := p.Constants[bx].(lua.LString); !ok || !inertGlobals[string(name)] {
				return false
			}
		}
	}
	for _, child := range p.FunctionPrototypes {
		if !isInert(child) {
			return false
		}
	}
	return true
}

// impureGlobals are globals through which a script can reach or replace
// the globals table (or load code that does).
var impureGlobals = map[string]bool{
	"_G": true, "getfenv": true, "setfenv": true, "rawset": true,
	"setmetatable": true, "getmetatable": true, "load": true,
	"loadstring": true, "dofile": true, "loadfile": true, "module": true,
	"require": true, "package": true,
}

const (
	opcodeShift = 26      // gopher-lua: opcode in the top 6 bits
	bxMask      = 0x3ffff // gopher-lua: Bx in the low 18 bits
)

// isPure reports whether a compiled chunk provably leaves the globals table
// untouched: it assigns no global and reads none of impureGlobals. Scripts
// that are not pure get the globals table restored after each run.
func isPure(p *lua.FunctionProto) bool {
	for _, inst := range p.Code {
		switch int(inst >> opcodeShift) {
		case lua.OP_SETGLOBAL:
			return false
		case lua.OP_GETGLOBAL:
			bx := int(inst & bxMask)
			if bx < len(p.Constants) {
				if name, ok := p.Constants[bx].(lua.LString); ok && impureGlobals[string(name)] {
					return false
				}
			}
		}
	}
	for _, child := range p.FunctionPrototypes {
		if !isPure(child) {
			return false
		}
	}
	return true
}

// A Cache keeps what engines can share: compiled scripts (read-only once
// compiled) and Lua states given back unchanged (see putVM). Its owner
// (a run's world, or the pool of an explorer's runs) hands it to New;
// engines on several goroutines may share one. The zero Cache is ready.
type Cache struct {
	protos sync.Map // script body -> *compiled
	vms    sync.Pool
}

func (c *Cache) lookup(src string) (*compiled, bool) {
	if c == nil {
		return nil, false
	}
	v, ok := c.protos.Load(src)
	if !ok {
		return nil, false
	}
	return v.(*compiled), true
}

func (c *Cache) store(src string, p *compiled) {
	if c != nil {
		c.protos.Store(src, p)
	}
}

// SyntaxError is a script body Lua cannot compile: the line it stops at
// (1-based; the body's last line when the body ends too early) and why.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// CheckSyntax compiles src as the engine does and returns its
// *SyntaxError, or nil when it compiles: a script a user gives is
// checked before anything runs it.
func CheckSyntax(src string) error {
	c := compileProto(src)
	if c.err == nil {
		return nil
	}
	last := strings.Count(src, "\n") + 1
	var pe *parse.Error
	var ce *lua.CompileError
	switch {
	case errors.As(c.err, &pe):
		msg := pe.Message
		if pe.Pos.Line == parse.EOF {
			return &SyntaxError{Line: last, Msg: msg + " at the end of the script"}
		}
		if pe.Token != "" {
			msg += fmt.Sprintf(" near '%s'", pe.Token)
		}
		return &SyntaxError{Line: pe.Pos.Line, Msg: msg}
	case errors.As(c.err, &ce):
		return &SyntaxError{Line: ce.Line, Msg: ce.Message}
	}
	return &SyntaxError{Line: 1, Msg: strings.TrimSpace(c.err.Error())}
}
