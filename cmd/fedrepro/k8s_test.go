package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// The Kubernetes manifests cannot be applied here (no cluster), so this
// test reads them and checks what makes them work: an Indexed Job whose
// completions equal the FEDREPRO_SHARD_COUNT its pods read, container
// arguments that fedrepro's own flag parsers accept (`--shard auto`
// resolving every index to a distinct shard), results and reports on the
// mounted shared volume, the same claim, image, paper and scale in both
// Jobs, and an image that the documented build command produces.

type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		// Job
		CompletionMode       string   `yaml:"completionMode"`
		Completions          *int     `yaml:"completions"`
		Parallelism          *int     `yaml:"parallelism"`
		BackoffLimitPerIndex *int     `yaml:"backoffLimitPerIndex"`
		Template             struct { // pod template
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string   `yaml:"name"`
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
		// PersistentVolumeClaim
		AccessModes []string `yaml:"accessModes"`
	} `yaml:"spec"`
}

func readManifest(t *testing.T, name string) *k8sObject {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", name))
	if err != nil {
		t.Fatal(err)
	}
	var o k8sObject
	if err := yaml.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &o
}

// underMount returns the volume a path lies on, or "".
func underMount(o *k8sObject, path string) string {
	c := o.Spec.Template.Spec.Containers[0]
	for _, m := range c.VolumeMounts {
		if path == m.MountPath || strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/") {
			for _, v := range o.Spec.Template.Spec.Volumes {
				if v.Name == m.Name && v.PersistentVolumeClaim != nil {
					return v.PersistentVolumeClaim.ClaimName
				}
			}
		}
	}
	return ""
}

func TestKubernetesManifests(t *testing.T) {
	pvc := readManifest(t, "pvc.yaml")
	shards := readManifest(t, "shards-job.yaml")
	merge := readManifest(t, "merge-job.yaml")
	if pvc.Kind != "PersistentVolumeClaim" || len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != "ReadWriteMany" {
		t.Errorf("pvc.yaml: %s %v; want a ReadWriteMany claim (pods on several nodes write results)", pvc.Kind, pvc.Spec.AccessModes)
	}
	for _, o := range []*k8sObject{shards, merge} {
		if o.APIVersion != "batch/v1" || o.Kind != "Job" || len(o.Spec.Template.Spec.Containers) != 1 {
			t.Fatalf("%s: %s %s with %d containers", o.Metadata.Name, o.APIVersion, o.Kind, len(o.Spec.Template.Spec.Containers))
		}
		if o.Spec.Template.Spec.RestartPolicy != "Never" {
			t.Errorf("%s: restartPolicy %q, want Never", o.Metadata.Name, o.Spec.Template.Spec.RestartPolicy)
		}
	}

	// The shard Job.
	s := shards.Spec
	if s.CompletionMode != "Indexed" || s.Completions == nil || *s.Completions < 1 {
		t.Fatalf("shards: completionMode %q completions %s; want an Indexed Job", s.CompletionMode, intOrNone(s.Completions))
	}
	n := *s.Completions
	if s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > n {
		t.Errorf("shards: parallelism %s, want 1..%d", intOrNone(s.Parallelism), n)
	}
	sc := s.Template.Spec.Containers[0]
	count := ""
	for _, e := range sc.Env {
		if e.Name == runner.ShardCountEnv {
			count = e.Value
		}
	}
	if count != strconv.Itoa(n) {
		t.Errorf("shards: %s=%q but completions %d", runner.ShardCountEnv, count, n)
	}
	if len(sc.Command) != 0 || len(sc.Args) == 0 || sc.Args[0] != "reproduce" {
		t.Fatalf("shards: command %v args %v; want the image's entrypoint with args `reproduce …`", sc.Command, sc.Args)
	}
	c, fs, noRun := reproduceFlags(io.Discard)
	if err := parseFlags(fs.FlagSet, sc.Args[1:]); err != nil || *noRun {
		t.Fatalf("shards: fedrepro reproduce rejects %v: %v", sc.Args[1:], err)
	}
	if c.shard != "auto" {
		t.Errorf("shards: --shard %q, want auto", c.shard)
	}
	claim := underMount(shards, c.results)
	if !filepath.IsAbs(c.results) || claim == "" || claim != pvc.Metadata.Name {
		t.Errorf("shards: --results %q is not on the claim %q (mounted: %q)", c.results, pvc.Metadata.Name, claim)
	}
	// Every completion index resolves, through the same code a pod runs,
	// to a distinct shard of n.
	t.Setenv(runner.ShardCountEnv, count)
	seen := map[int]bool{}
	for k := 0; k < n; k++ {
		t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(k))
		_, o, err := c.options(io.Discard)
		if err != nil {
			t.Fatalf("shards: index %d: %v", k, err)
		}
		if o.Shards != n || seen[o.Shard] {
			t.Fatalf("shards: index %d → shard %d/%d", k, o.Shard, o.Shards)
		}
		seen[o.Shard] = true
	}

	// The merge Job: one pod, `report` on the same results.
	m := merge.Spec
	if m.CompletionMode == "Indexed" || (m.Completions != nil && *m.Completions != 1) {
		t.Errorf("merge: completionMode %q completions %s; want one pod", m.CompletionMode, intOrNone(m.Completions))
	}
	mc := m.Template.Spec.Containers[0]
	if len(mc.Args) == 0 || mc.Args[0] != "report" {
		t.Fatalf("merge: args %v; want `report …`", mc.Args)
	}
	var mf mergeFlags
	if err := parseFlags(reportFlags(&mf, io.Discard), mc.Args[1:]); err != nil {
		t.Fatalf("merge: fedrepro report rejects %v: %v", mc.Args[1:], err)
	}
	if mf.paper != c.paper || mf.scale != c.scale || mf.results != c.results || mf.dataDir != c.dataDir || mf.spec != c.spec {
		t.Errorf("merge: paper/scale/results/data-dir/spec %q %q %q %q %q differ from the shards' %q %q %q %q %q",
			mf.paper, mf.scale, mf.results, mf.dataDir, mf.spec, c.paper, c.scale, c.results, c.dataDir, c.spec)
	}
	if checkPaper(mf.paper) != nil {
		t.Errorf("merge: unknown paper %q", mf.paper)
	}
	if underMount(merge, mf.results) != pvc.Metadata.Name || underMount(merge, mf.reports) != pvc.Metadata.Name {
		t.Errorf("merge: --results %q or --reports %q not on the claim %q", mf.results, mf.reports, pvc.Metadata.Name)
	}
	if mc.Image != sc.Image || sc.Image == "" {
		t.Errorf("images differ: shards %q, merge %q", sc.Image, mc.Image)
	}

	// The image: the Dockerfile builds the static binary as the entrypoint,
	// and the README's build command tags the image the Jobs run.
	df, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=0 go build", "./cmd/fedrepro", `ENTRYPOINT ["/usr/local/bin/fedrepro"]`, "COPY --from=build /out/fedrepro /usr/local/bin/fedrepro"} {
		if !strings.Contains(string(df), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	build := regexp.MustCompile(`docker build -f deploy/k8s/Dockerfile -t (\S+) \.`).FindSubmatch(readme)
	if build == nil || string(build[1]) != sc.Image {
		t.Errorf("README's build command %q does not tag the Jobs' image %q", build, sc.Image)
	}
}

func intOrNone(p *int) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(*p)
}
