package notify

import (
	"sync"
	"time"

	"github.com/wneessen/go-mail/smtp"
)

// Sessions: a worker sends hundreds of messages a second to one relay, and a new SMTP session costs a TCP and a
// TLS handshake, EHLO twice and AUTH before the first MAIL (profiled at about a quarter of the notify step's CPU).
// Sessions that delivered a message are kept for the next one, so a steady stream pays that once per session.

// maxIdleSessions bounds the sessions kept open between messages (the notify step sends a few at once).
const maxIdleSessions = 32

// maxIdleTime is how long an unused session is kept; relays drop idle clients after a while, and a session that
// died meanwhile costs a failed NOOP and a new dial.
const maxIdleTime = 10 * time.Second

// sessionPool holds idle SMTP sessions, most recently used last. The zero value is ready to use.
type sessionPool struct {
	mu     sync.Mutex
	idle   []idleSession
	closed bool
}

type idleSession struct {
	c     *smtp.Client
	since time.Time
}

// get returns an idle session to reuse, or nil. Sessions idle for too long are closed on the way.
func (p *sessionPool) get(now time.Time) *smtp.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 {
		s := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if now.Sub(s.since) < maxIdleTime {
			return s.c
		}
		_ = s.c.Close()
	}
	return nil
}

// put keeps a session that is in a clean state (its last transaction ended with RSET) for the next message.
func (p *sessionPool) put(c *smtp.Client, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle) >= maxIdleSessions {
		_ = c.Close()
		return
	}
	p.idle = append(p.idle, idleSession{c: c, since: now})
}

// close ends every idle session politely (QUIT) and keeps no more.
func (p *sessionPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, s := range idle {
		_ = s.c.Quit()
	}
}
