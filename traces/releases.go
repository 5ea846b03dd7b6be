package traces

// RedissonRelease is one modelled Redisson release and the published bugs
// of the corpus that its own run of each bug's scenario reproduces.
type RedissonRelease struct {
	Release  string   `json:"release"`
	Protocol string   `json:"protocol"`
	Bugs     []string `json:"bugs"` // corpus bug IDs this release shows
	Use      bool     `json:"use"`  // the release to use: the newest released one with the fewest bugs
}

// redissonReleases are the catalog's RLock.lock() protocols, oldest first.
// An unreleased one (a pull request) is never the one to use.
var redissonReleases = []struct {
	release, protocol string
	released          bool
}{
	{"3.12.0", "redisson-3.12.0", true},
	{"3.16.0", "redisson", true},
	{"3.16.1", "redisson-3.16.1", true},
	{"3.17.0", "redisson-3.17.0", true},
	{"4.4.0 / master 66863978b", "redisson-latest", true},
	{"master + PR #7277 (unmerged)", "redisson-pr7277", false},
}

// RedissonReleases runs every Redisson bug scenario of the corpus on every
// modelled release and says which bugs each shows: a bug shows when the
// release's run breaks the property the bug's scenario pins, with its
// cause.
func RedissonReleases() ([]RedissonRelease, error) {
	var bugs []Reference
	for _, b := range Bugs() {
		if b.Bug.Library == "Redisson" {
			bugs = append(bugs, b)
		}
	}
	out := make([]RedissonRelease, len(redissonReleases))
	best := -1
	for i, r := range redissonReleases {
		out[i] = RedissonRelease{Release: r.release, Protocol: r.protocol, Bugs: []string{}}
		for _, b := range bugs {
			sc := b.Scenario
			sc.Protocol = r.protocol
			o, err := Evaluate(sc)
			if err != nil {
				return nil, err
			}
			if b.Expect.ShowsIn(o.File.Report) {
				out[i].Bugs = append(out[i].Bugs, b.Bug.ID)
			}
		}
		if r.released && (best < 0 || len(out[i].Bugs) <= len(out[best].Bugs)) {
			best = i
		}
	}
	if best >= 0 {
		out[best].Use = true
	}
	return out, nil
}
