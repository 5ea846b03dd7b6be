module github.com/locksim/locksim

go 1.26.8

require github.com/alicebob/miniredis/v2 v2.40.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/yuin/gopher-lua v1.1.2
	pgregory.net/rapid v1.3.0
)
