package signin

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/notify"
)

// QueueSize is how many mails a Mailer holds waiting; beyond it a request is dropped (and counted).
const QueueSize = 256

// Mailer sends the sign-in mails of every audience of a process off the request path: a bounded queue and a few
// goroutines (Run). Its senders are the service's mail path: SMTP, or the outbox under `make run`.
type Mailer struct {
	sender  notify.LetterSender
	log     *slog.Logger
	metrics *metrics.Metrics
	queue   chan job
	workers int

	mu       sync.Mutex
	services map[*Service]bool // swept by Run
}

// job is one mail to send.
type job struct {
	svc           *Service
	to, lang      string
	text          Text
	checkEligible bool
}

// NewMailer returns a mailer sending through sender (nil log: slog.Default()).
func NewMailer(sender notify.LetterSender, log *slog.Logger, m *metrics.Metrics) *Mailer {
	if log == nil {
		log = slog.Default()
	}
	return &Mailer{sender: sender, log: log, metrics: m, queue: make(chan job, QueueSize), workers: 4,
		services: map[*Service]bool{}}
}

// enqueue adds j without waiting; false when the queue is full.
func (m *Mailer) enqueue(j job) bool {
	m.mu.Lock()
	m.services[j.svc] = true
	m.mu.Unlock()
	select {
	case m.queue <- j:
		return true
	default:
		return false
	}
}

// Run sends queued mails until ctx ends, and sweeps ended links and sessions every sweepEvery. What is still
// queued when ctx ends is dropped: its people ask again.
func (m *Mailer) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range m.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-m.queue:
					m.send(ctx, j)
				}
			}
		}()
	}
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-t.C:
			m.sweep(ctx)
		}
	}
}

const sweepEvery = 10 * time.Minute

func (m *Mailer) sweep(ctx context.Context) {
	m.mu.Lock()
	var one *Service
	for s := range m.services {
		one = s
		break
	}
	m.mu.Unlock()
	if one != nil { // one sweep clears every audience's rows
		if err := one.Sweep(ctx); err != nil {
			m.log.Warn("signin sweep failed", "err", err)
		}
	}
}

// send makes the link and mails it. Failures are logged and counted; the person asks again.
func (m *Mailer) send(ctx context.Context, j job) {
	aud := string(j.svc.cfg.Audience)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if j.checkEligible && j.svc.cfg.Eligible != nil {
		ok, err := j.svc.cfg.Eligible(ctx, j.to)
		if err != nil {
			m.log.Warn("signin eligibility check failed", "audience", aud, "err", err)
			m.metrics.SigninMail(aud, "failed")
			return
		}
		if !ok {
			m.metrics.SigninRequest(aud, "ineligible")
			return
		}
	}
	link, err := j.svc.link(ctx, j.to)
	if err != nil {
		m.log.Warn("signin link failed", "audience", aud, "err", err)
		m.metrics.SigninMail(aud, "failed")
		return
	}
	subject, body := j.text(j.lang, link)
	err = m.sender.SendLetter(ctx, notify.Letter{To: j.to, Subject: subject, Text: body, ID: "signin." + randomToken()[:22]})
	if err != nil {
		m.log.Warn("signin mail failed", "audience", aud, "err", err)
		m.metrics.SigninMail(aud, "failed")
		return
	}
	m.metrics.SigninMail(aud, "sent")
}
