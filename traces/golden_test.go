package traces

var goldenHashes = []struct {
	seed uint64
	hash string
}{}
