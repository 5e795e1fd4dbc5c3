package main

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The compose file and the Kubernetes manifest run the cluster the tests
// run: deploy/haproxy.cfg, every variable it reads given, valid for
// HAProxy with their values (haproxy -c); three replicas, each given the
// store.
func TestTheShippedClustersRunTheTestedConfig(t *testing.T) {
	cfg := read(t, "../haproxy.cfg")
	var vars []string
	for _, m := range regexp.MustCompile(`\$\{(\w+)\}`).FindAllStringSubmatch(cfg, -1) {
		vars = append(vars, m[1])
	}
	slices.Sort(vars)
	vars = slices.Compact(vars)
	if len(vars) != 4 {
		t.Fatalf("haproxy.cfg reads %v, want the address to listen on and three replicas'", vars)
	}
	check := func(where string, env map[string]string) {
		t.Helper()
		var given []string
		for _, v := range vars {
			if env[v] == "" {
				t.Errorf("%s: HAProxy is not given %s", where, v)
			}
			given = append(given, v+"="+env[v])
		}
		cmd := exec.Command("haproxy", "-c", "-f", "../haproxy.cfg")
		cmd.Env = append(os.Environ(), given...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: haproxy -c: %v\n%s", where, err, out)
		}
	}

	var compose struct {
		Services map[string]struct {
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "../compose.yaml")), &compose); err != nil {
		t.Fatal(err)
	}
	check("compose.yaml", compose.Services["haproxy"].Environment)
	if v := compose.Services["haproxy"].Volumes; len(v) != 1 || !strings.HasPrefix(v[0], "./haproxy.cfg:") {
		t.Errorf("compose.yaml: HAProxy's config is %v, want ./haproxy.cfg", v)
	}
	for _, name := range []string{"replica1", "replica2", "replica3"} {
		r := compose.Services[name]
		if !strings.HasPrefix(r.Environment["MCPBRIDGE_STORE"], "redis://redis:") {
			t.Errorf("compose.yaml: %s is not given the store: %v", name, r.Environment)
		}
		if want := name + ":8080"; !slices.Contains(slices.Collect(maps.Values(compose.Services["haproxy"].Environment)), want) {
			t.Errorf("compose.yaml: HAProxy does not reach %s", want)
		}
	}

	type container struct {
		Name string   `yaml:"name"`
		Args []string `yaml:"args"`
		Env  []struct {
			Name  string `yaml:"name"`
			Value string `yaml:"value"`
		} `yaml:"env"`
	}
	type object struct {
		Kind     string `yaml:"kind"`
		Metadata struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
		Spec struct {
			Replicas    int    `yaml:"replicas"`
			ServiceName string `yaml:"serviceName"`
			Template    struct {
				Spec struct {
					Containers []container `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	objects := map[string]object{}
	dec := yaml.NewDecoder(strings.NewReader(read(t, "../kubernetes.yaml")))
	for {
		var o object
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		objects[o.Kind+"/"+o.Metadata.Name] = o
	}
	replicas, proxy := objects["StatefulSet/mcpbridge"], objects["Deployment/mcpbridge-haproxy"]
	if replicas.Spec.Replicas != 3 || len(replicas.Spec.Template.Spec.Containers) != 1 || len(proxy.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("kubernetes.yaml: want a StatefulSet of three replicas and a Deployment of HAProxy: %v", objects)
	}
	args := replicas.Spec.Template.Spec.Containers[0].Args
	if i := slices.Index(args, "--store"); i < 0 || !strings.HasPrefix(args[i+1], "redis://mcpbridge-redis:") || objects["Service/mcpbridge-redis"].Kind == "" {
		t.Errorf("kubernetes.yaml: the replicas are not given the store's Service: %v", args)
	}
	env := map[string]string{}
	for _, e := range proxy.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	check("kubernetes.yaml", env)
	for i := range 3 {
		if want := "mcpbridge-" + string(rune('0'+i)) + "." + replicas.Spec.ServiceName + ":8080"; !slices.Contains(slices.Collect(maps.Values(env)), want) {
			t.Errorf("kubernetes.yaml: HAProxy does not reach %s", want)
		}
	}
	if !bytes.Contains([]byte(read(t, "../kubernetes.yaml")), []byte("--from-file=haproxy.cfg=deploy/haproxy.cfg")) {
		t.Error("kubernetes.yaml does not say to make HAProxy's ConfigMap of deploy/haproxy.cfg")
	}
}
