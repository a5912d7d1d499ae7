package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// record is one line of STATE_DIR/requests.jsonl: the request as the
// stand-in logs it (method, path, query, content type, body) and the
// server's answer (status, response body). Bodies that are not JSON are
// kept as strings; the body of a GET is not logged, its response is.
type record struct {
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Query       string          `json:"query"`
	ContentType string          `json:"contentType"`
	Body        json.RawMessage `json:"body"`
	Status      int             `json:"status"`
	Response    json.RawMessage `json:"response"`
}

// asJSON returns the bytes as a JSON value: themselves when they are JSON,
// else a JSON string of them, null when empty.
func asJSON(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(b) {
		return json.RawMessage(b)
	}
	s, _ := json.Marshal(string(b))
	return s
}

// recorder forwards to the API server with the admin token and logs every
// write (and every answer that is not a success) to requests.jsonl.
type recorder struct {
	proxy *httputil.ReverseProxy
	mu    sync.Mutex
	log   *os.File
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	rec := &capture{ResponseWriter: w, status: 200}
	r.proxy.ServeHTTP(rec, req)
	if req.Method == "GET" && rec.status < 400 || strings.Contains(req.URL.RawQuery, "watch=") {
		return
	}
	line, _ := json.Marshal(record{
		Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		ContentType: req.Header.Get("Content-Type"), Body: asJSON(body),
		Status: rec.status, Response: asJSON(rec.buf.Bytes()),
	})
	r.mu.Lock()
	r.log.Write(append(line, '\n'))
	r.mu.Unlock()
}

// capture keeps the status and the body of the answer while passing them on.
type capture struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (c *capture) WriteHeader(code int) {
	c.status = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(p []byte) (int, error) {
	c.buf.Write(p)
	return c.ResponseWriter.Write(p)
}

func (c *capture) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// startProxy serves the recording proxy on a free loopback port.
func startProxy(dir, base, token string) (net.Listener, error) {
	target, _ := url.Parse(base)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	inner := rp.Director
	rp.Director = func(req *http.Request) {
		inner(req)
		req.Host = target.Host
		req.Header.Set("Authorization", "Bearer "+token)
	}
	f, err := os.OpenFile(filepath.Join(dir, "requests.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Close()
		return nil, err
	}
	go http.Serve(l, &recorder{proxy: rp, log: f})
	return l, nil
}
