// Command searchbench measures the search behind find_tools
// (internal/names.Index) on public tool-retrieval sets, next to plain BM25
// and the search it replaced, all computed in the same run, and times
// indexing and querying catalogs of 100 to 10,000 tools.
//
//	go run ./internal/bench/searchbench -data .cache/retrieval
//
// For each set it prints how often the right tool comes first (top-1) and
// among the first five (top-5), which find_tools shows of its twelve, and
// the mean and median rank of the right tool (a tool not found ranks
// last). README.md beside this file says where each set comes from, its
// licence, and which of its files go where under the data directory; a
// set whose files are missing is skipped with a line saying so, and the
// timings then run on the sets that are there, or on a generated catalog.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/tool"
)

func main() {
	data := flag.String("data", cmpOr(os.Getenv("MCPBRIDGE_RETRIEVAL_DATA"), ".cache/retrieval"), "the `directory` of the retrieval sets (README.md)")
	sizes := flag.String("sizes", "100,1000,10000", "catalog sizes to time, comma-separated")
	flag.Parse()
	sets, missing, err := loadSets(*data)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range missing {
		fmt.Printf("set %s: not in %s; see internal/bench/searchbench/README.md\n", m, *data)
	}
	if len(sets) > 0 {
		quality(sets)
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
			log.Fatalf("-sizes: %q is not a size", s)
		}
		ns = append(ns, n)
	}
	timing(sets, ns)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// quality prints each ranker's figures on each set.
func quality(sets []*set) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "set\ttools\tqueries\tsearch\ttop-1\ttop-5\tmean rank\tmedian rank\t")
	for _, s := range sets {
		rankers := []struct {
			name string
			r    ranker
		}{
			{"names.Index", index{names.NewIndex(s.tools)}},
			{"BM25", newBM25(s.tools)},
			{"before", before{s.tools}},
		}
		for _, r := range rankers {
			ranks := make([]int, len(s.queries))
			top1, top5, sum := 0, 0, 0
			for i, q := range s.queries {
				rank := r.r.rank(q.text, q.want)
				if rank == 0 {
					rank = len(s.tools)
				}
				ranks[i] = rank
				sum += rank
				if rank == 1 {
					top1++
				}
				if rank <= 5 {
					top5++
				}
			}
			slices.Sort(ranks)
			n := float64(len(s.queries))
			fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%.1f%%\t%.1f%%\t%.1f\t%d\t\n", s.name, len(s.tools), len(s.queries), r.name,
				100*float64(top1)/n, 100*float64(top5)/n, float64(sum)/n, ranks[len(ranks)/2])
		}
	}
	w.Flush()
}

// index ranks by names.Index, as find_tools does.
type index struct{ x *names.Index }

func (x index) rank(q, want string) int {
	hits, _ := x.x.Search(q, 0, nil)
	return slices.IndexFunc(hits, func(d tool.Definition) bool { return d.Name == want }) + 1
}

// timing prints the time to index a catalog of each size and to answer
// one query over it as find_tools asks (the best twelve), and the memory
// the index holds.
func timing(sets []*set, sizes []int) {
	tools, queries := pool(sets)
	from := "the sets' tools and queries"
	if len(tools) == 0 {
		tools, queries = generated(max(slices.Max(sizes), 1))
		from = "a generated catalog"
	}
	fmt.Printf("\ntiming on %s (GOMAXPROCS %d):\n", from, runtime.GOMAXPROCS(0))
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "tools\tindex (median of 5)\tquery (mean)\tindex memory\tper tool\t")
	for _, n := range sizes {
		defs := catalogOf(tools, n)
		var builds []time.Duration
		for range 5 {
			start := time.Now()
			names.NewIndex(defs)
			builds = append(builds, time.Since(start))
		}
		slices.Sort(builds)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		x := names.NewIndex(defs)
		runtime.GC()
		runtime.ReadMemStats(&after)
		mem := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		const rounds = 2000
		start := time.Now()
		for i := range rounds {
			x.Search(queries[i%len(queries)], 12, nil)
		}
		perQuery := time.Since(start) / rounds
		runtime.KeepAlive(x)
		fmt.Fprintf(w, "%d\t%v\t%v\t%.1f MiB\t%d B\t\n", n, builds[2].Round(time.Microsecond), perQuery.Round(time.Microsecond/10),
			float64(mem)/(1<<20), mem/int64(n))
	}
	w.Flush()
}

// pool returns every set's tools and queries, the tools' names made unique.
func pool(sets []*set) ([]tool.Definition, []string) {
	var tools []tool.Definition
	var queries []string
	for _, s := range sets {
		tools = append(tools, s.tools...)
		for _, q := range s.queries {
			queries = append(queries, q.text)
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(queries), func(i, j int) { queries[i], queries[j] = queries[j], queries[i] })
	return tools, queries
}

// catalogOf returns n tools, tools over and over (renamed) if too few.
func catalogOf(tools []tool.Definition, n int) []tool.Definition {
	out := make([]tool.Definition, n)
	for i := range out {
		out[i] = tools[i%len(tools)]
		if round := i / len(tools); round > 0 {
			out[i].Name = fmt.Sprintf("%s_%d", out[i].Name, round)
		}
	}
	return out
}

// generated returns a catalog of n tools and queries made of words drawn
// at random (the same every run), for timing without the sets.
func generated(n int) ([]tool.Definition, []string) {
	vocab := strings.Fields(`list get create update delete search find send read write file note issue
		ticket message channel user team project calendar event weather forecast city country stock price
		order invoice payment customer email contact document page image video audio track playlist map
		route place hotel flight booking recipe food drink movie book author news article report chart
		table row column database query index record log metric alert server service deploy build test`)
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	defs := make([]tool.Definition, n)
	for i := range defs {
		defs[i] = tool.Definition{
			Name:        fmt.Sprintf("%s_%d", strings.ReplaceAll(pick(2), " ", "_"), i),
			Description: pick(20),
			InputSchema: []byte(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string","description":%q}}}`, vocab[i%len(vocab)], pick(6))),
		}
	}
	queries := make([]string, 1000)
	for i := range queries {
		queries[i] = pick(4)
	}
	return defs, queries
}
