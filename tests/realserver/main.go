// Command realserver runs a real kube-apiserver v1.32.4 and its etcd on
// loopback, for the judged tests of docs/TESTING.md.
//
//	realserver STATE_DIR
//	realserver csaupgrade < cases.jsonl   (client-go's csaupgrade: csaupgrade.go)
//
// It starts embedded etcd (3.5, as Kubernetes 1.32 pins it), waits until etcd
// is ready, then runs kube-apiserver in-process with a static admin token,
// a generated service-account signing key and RBAC. When /readyz answers and
// the default namespace exists it writes STATE_DIR/kubeconfig (the admin
// token, the server's self-signed certificate not verified), STATE_DIR/token,
// STATE_DIR/url (the HTTPS address) and, last, STATE_DIR/port: the port of a
// plain-HTTP recording proxy in front of the server (the stand-in server's
// contract, tests/cli/fakeapi.py), which logs every request and its answer to
// STATE_DIR/requests.jsonl. SIGTERM stops the API server, then etcd.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap/zapcore"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "csaupgrade" {
		csaUpgradeMain()
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: realserver STATE_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "realserver:", err)
		os.Exit(1)
	}
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startEtcd runs etcd in this process on two free loopback ports and returns
// once it serves clients.
func startEtcd(dir string) (*embed.Etcd, string, error) {
	cport, err := freePort()
	if err != nil {
		return nil, "", err
	}
	pport, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "realserver"
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = zapcore.ErrorLevel.String()
	cfg.LogOutputs = []string{filepath.Join(dir, "etcd.log")}
	curl, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(cport))
	purl, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(pport))
	cfg.ListenClientUrls = []url.URL{*curl}
	cfg.AdvertiseClientUrls = []url.URL{*curl}
	cfg.ListenPeerUrls = []url.URL{*purl}
	cfg.AdvertisePeerUrls = []url.URL{*purl}
	cfg.InitialCluster = cfg.Name + "=" + purl.String()
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, "", err
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", fmt.Errorf("etcd: not ready after 60 s")
	}
	return e, curl.String(), nil
}

// writeCredentials writes the service-account signing key (ECDSA P-256) and
// the token file with one admin in system:masters; it returns the token.
func writeCredentials(pki string) (string, error) {
	if err := os.MkdirAll(pki, 0o700); err != nil {
		return "", err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	if err := os.WriteFile(filepath.Join(pki, "sa.key"), keyPEM, 0o600); err != nil {
		return "", err
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := hex.EncodeToString(raw)
	line := token + ",admin,admin,\"system:masters\"\n"
	if err := os.WriteFile(filepath.Join(pki, "tokens.csv"), []byte(line), 0o600); err != nil {
		return "", err
	}
	return token, nil
}

// apiserverArgs are kube-apiserver's flags: everything on loopback, RBAC,
// the token file and the service-account key of writeCredentials.
func apiserverArgs(dir, etcdURL string, port int) []string {
	pki := filepath.Join(dir, "pki")
	key := filepath.Join(pki, "sa.key")
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + pki,
		"--service-cluster-ip-range=10.0.0.0/16",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + key,
		"--service-account-signing-key-file=" + key,
		"--token-auth-file=" + filepath.Join(pki, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		// The ServiceAccount plugin gives every Pod a token volume with a
		// random name (kube-api-access-xxxxx), which nothing offline can
		// know, and needs a controller to create each namespace's default
		// account: off, as docs/DIFFERENCES.md says. Every other default
		// plugin stays on.
		"--disable-admission-plugins=ServiceAccount",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
		"--v=0",
	}
}

// waitReady polls /readyz, then the default namespace, with the admin token.
func waitReady(ctx context.Context, base, token string, done <-chan error) error {
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	get := func(path string) int {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(180 * time.Second)
	for _, path := range []string{"/readyz", "/api/v1/namespaces/default"} {
		for get(path) != 200 {
			if time.Now().After(deadline) {
				return fmt.Errorf("%s not ready after 180 s", path)
			}
			select {
			case err := <-done:
				return fmt.Errorf("kube-apiserver stopped: %v", err)
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}

// writeAtomic writes a file through a temporary name, so a reader polling for
// it never sees it half written.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func kubeconfig(base, token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: real
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: %s
contexts:
- name: real
  context:
    cluster: real
    user: admin
    namespace: default
current-context: real
`, base, token)
}

func run(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, f := range []string{"port", "kubeconfig", "url", "token"} {
		os.Remove(filepath.Join(dir, f))
	}
	token, err := writeCredentials(filepath.Join(dir, "pki"))
	if err != nil {
		return err
	}
	etcd, etcdURL, err := startEtcd(dir)
	if err != nil {
		return err
	}
	defer etcd.Close()

	port, err := freePort()
	if err != nil {
		return err
	}
	// kube-apiserver's own command installs the SIGTERM handler and returns
	// once the server has shut down.
	cmd := app.NewAPIServerCommand()
	cmd.SetArgs(apiserverArgs(dir, etcdURL, port))
	cmd.SilenceUsage = true
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()

	base := "https://127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if err := waitReady(ctx, base, token, done); err != nil {
		return err
	}
	proxy, err := startProxy(dir, base, token)
	if err != nil {
		return err
	}
	defer proxy.Close()
	files := []struct{ name, data string }{
		{"kubeconfig", kubeconfig(base, token)},
		{"token", token + "\n"},
		{"url", base + "\n"},
		{"port", strconv.Itoa(proxy.Addr().(*net.TCPAddr).Port) + "\n"},
	}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), []byte(f.data)); err != nil {
			return err
		}
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// The API server's own handler saw the signal too; wait for it.
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		}
		return nil
	}
}
