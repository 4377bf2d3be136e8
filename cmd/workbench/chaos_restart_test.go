package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/workbench/workbench/internal/testenv"
)

// privateNATS is a nats-server of the test's own (JetStream on, its store in a temp dir), which the
// test may stop and start: the shared NATS is never restarted.
type privateNATS struct {
	t     *testing.T
	bin   string
	port  int
	store string
	cmd   *exec.Cmd
	done  chan struct{}
}

func newPrivateNATS(t *testing.T) *privateNATS {
	t.Helper()
	bin := "/usr/sbin/nats-server"
	if p, err := exec.LookPath("nats-server"); err == nil {
		bin = p
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("nats-server is not installed: %v", err)
		}
		t.Skipf("nats-server is not installed: %v", err)
	}
	n := &privateNATS{t: t, bin: bin, port: freePort(t), store: t.TempDir()}
	n.start()
	t.Cleanup(n.stop)
	return n
}

func (n *privateNATS) url() string { return "nats://127.0.0.1:" + strconv.Itoa(n.port) }

func (n *privateNATS) start() {
	n.t.Helper()
	n.cmd = exec.Command(n.bin, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(n.port), "-sd", n.store)
	if err := n.cmd.Start(); err != nil {
		n.t.Fatalf("start nats-server: %v", err)
	}
	done := make(chan struct{})
	n.done = done
	go func(cmd *exec.Cmd) { cmd.Wait(); close(done) }(n.cmd) //nolint:errcheck
	eventually(n.t, "the private nats-server answers with JetStream", 20*time.Second, func() error {
		nc, err := nats.Connect(n.url(), nats.Timeout(time.Second))
		if err != nil {
			return err
		}
		defer nc.Close()
		js, err := nc.JetStream()
		if err != nil {
			return err
		}
		_, err = js.AccountInfo()
		return err
	})
}

func (n *privateNATS) stop() {
	if n.cmd == nil {
		return
	}
	select {
	case <-n.done:
		return
	default:
	}
	n.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	select {
	case <-n.done:
	case <-time.After(20 * time.Second):
		n.cmd.Process.Kill() //nolint:errcheck
		<-n.done
	}
}

// NATS stopped while a connection completes and started again: the relay publishes from its
// checkpoint once the bus is back, and wait_for_connection on the other replica still completes
// within its timeout.
func TestChaosNATSRestart(t *testing.T) {
	t.Parallel()
	bus := newPrivateNATS(t)
	p := newOAuthProvider(t)
	plugDir := t.TempDir()
	writeAcmePlugin(t, plugDir, p)
	c := newCluster(t, 2, map[string]string{
		"BUS_URL": bus.url(), "PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"ACME_CLIENT_ID": acmeClientID, "ACME_CLIENT_SECRET": acmeClientSecret,
	})
	p.register(c.public + "/api/auth/plugin/acme/callback")
	ada := c.user("ada@example.com")
	c.start()
	csA, _ := c.mcp(0).connectSDK(t, ada.Key)
	defer csA.Close()
	csB, _ := c.mcp(1).connectSDK(t, ada.Key)
	defer csB.Close()

	id, link := connectStart(t, csA)
	bus.stop()
	waited := make(chan string, 1)
	go func() { waited <- waitForConnection(csB, id, 60*time.Second) }()
	// The user finishes on A while the bus is down: the callback is appended to the log as ever.
	connectBrowse(t, c.browser(ada), c.replicas[0].base, c.replicas[0].base, link)
	select {
	case got := <-waited:
		t.Fatalf("wait_for_connection on B returned while the bus was down: %s", got)
	default:
	}
	bus.start()
	select {
	case got := <-waited:
		if got != `{"status":"CONNECTED"}` {
			t.Fatalf("wait_for_connection on B after the bus came back = %s", got)
		}
	case <-time.After(70 * time.Second):
		t.Fatal("wait_for_connection on B never returned")
	}
}

// A private PostgreSQL cluster restarted under two replicas: meanwhile every replica answers /readyz
// with 503 and /mcp with 503 whenever it needs the database (never 401), and afterwards both serve
// again without a restart. A key looked up before the outage may be answered from the API-key cache
// (an initialize touches no storage then), so the 503 is checked with a key no replica has seen.
func TestChaosPostgresRestart(t *testing.T) {
	t.Parallel()
	pg := testenv.NewCluster(t)
	c := newCluster(t, 2, map[string]string{"DATABASE_URL": pg.URL()})
	ada := c.user("ada@example.com")
	bob := c.user("bob@example.com") // bob's key is first presented during the outage: nothing has it cached
	c.start()
	call := func(i int) (int, string) {
		return c.mcp(i).rawPost(t, ada.Key, "", "", initializeBody)
	}
	for i := range c.replicas {
		if status, body := call(i); status != http.StatusOK {
			t.Fatalf("before the restart, %s: %d %s", c.replicas[i].name, status, body)
		}
	}
	c.admin.Close() // the admin's pool would hold connections across the restart
	pg.Stop()
	for i, r := range c.replicas {
		eventually(t, "replica "+r.name+" not ready while the database is down", 30*time.Second, func() error {
			resp, err := http.Get(r.base + "/readyz")
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable {
				return fmt.Errorf("/readyz %d", resp.StatusCode)
			}
			return nil
		})
		status, body := c.mcp(i).rawPost(t, bob.Key, "", "", initializeBody)
		if status != http.StatusServiceUnavailable {
			t.Errorf("%s /mcp with an uncached key while the database is down: %d %s, want 503", r.name, status, body)
		}
		if status, body := call(i); status != http.StatusOK && status != http.StatusServiceUnavailable {
			t.Errorf("%s /mcp with a cached key while the database is down: %d %s, want 200 or 503 (never 401)", r.name, status, body)
		}
	}
	pg.Start()
	for i, r := range c.replicas {
		c.waitReady(r)
		eventually(t, "replica "+r.name+" serves MCP again", 30*time.Second, func() error {
			if status, body := call(i); status != http.StatusOK {
				return fmt.Errorf("%d %.200s", status, body)
			}
			return nil
		})
		select {
		case <-r.done:
			t.Fatalf("replica %s exited: %v", r.name, r.err)
		default:
		}
	}
}
