/*
 * The open-model floor: the least CPU any open-model HTTP/1.1 sender can spend per request on this host, for
 * bench/load-driver.sh. One thread, one epoll set, keep-alive connections to one host: at each due time
 * (start + k / qps, CLOCK_MONOTONIC) it writes one fixed GET on an idle connection, and it reads each response with
 * one recv, framed by its header end and Content-Length, nothing parsed beyond the status code. It sleeps in
 * epoll_pwait2 until the next due time or a response, whichever comes first: what a precise open-model sender must
 * do, and what the load driver's send loop does. No allocation, no parsing, no recording beyond a lateness array.
 *
 * Usage: open-floor <ipv4> <port> <qps> <seconds> [max in flight, default 1000]
 * Prints one line: open_floor qps=<target> sent=<n> ok=<n> dropped=<n> errors=<n> p50_us= p99_us= p999_us= max_us=
 * (send lateness: send time minus due time, µs). CPU time is taken from outside (the bench's `time`), over the
 * requests nginx counted, as for the other peers.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF 4096

struct conn {
    int fd;
    int busy;
    int len;
    char buf[BUF];
};

static const char REQUEST[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: open-floor\r\n\r\n";

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t) t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return x < y ? -1 : x > y;
}

static struct sockaddr_in target;
static int epfd;

static int open_conn(struct conn *c) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *) &target, sizeof target) != 0) {
        perror("open-floor: connect");
        exit(1);
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    c->fd = fd;
    c->busy = 0;
    c->len = 0;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
    return fd;
}

/* One complete response at the start of c->buf: its length, or 0 when more bytes are needed. */
static int framed(const struct conn *c, int *ok) {
    const char *end = memmem(c->buf, (size_t) c->len, "\r\n\r\n", 4);
    if (end == NULL) {
        return 0;
    }
    int head = (int) (end - c->buf) + 4;
    long body = 0;
    for (const char *p = c->buf; p < end; p++) {
        if ((*p == '\n') && strncasecmp(p + 1, "content-length:", 15) == 0) {
            body = strtol(p + 16, NULL, 10);
            break;
        }
    }
    if (head + body > c->len) {
        return 0;
    }
    *ok = c->len >= 12 && strncmp(c->buf + 9, "200", 3) == 0;
    return head + (int) body;
}

/*
 * One recv on a readable connection: 1 when it completed a 200 response, 2 a response of another status, 0 when
 * more bytes are needed (or none were there), -1 when the peer closed or the read failed.
 */
static int readable(struct conn *c) {
    ssize_t r = recv(c->fd, c->buf + c->len, (size_t) (BUF - c->len), 0);
    if (r <= 0) {
        return r < 0 && errno == EAGAIN ? 0 : -1;
    }
    c->len += (int) r;
    int good = 0;
    int used = framed(c, &good);
    if (used == 0) {
        return 0;
    }
    memmove(c->buf, c->buf + used, (size_t) (c->len - used));
    c->len -= used;
    c->busy = 0;
    return good ? 1 : 2;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: open-floor <ipv4> <port> <qps> <seconds> [max in flight]\n");
        return 2;
    }
    double qps = atof(argv[3]);
    double seconds = atof(argv[4]);
    int max_in_flight = argc > 5 ? atoi(argv[5]) : 1000;
    if (qps <= 0 || seconds <= 0 || max_in_flight <= 0) {
        fprintf(stderr, "open-floor: qps, seconds and max in flight must be > 0\n");
        return 2;
    }
    memset(&target, 0, sizeof target);
    target.sin_family = AF_INET;
    target.sin_port = htons((uint16_t) atoi(argv[2]));
    if (inet_pton(AF_INET, argv[1], &target.sin_addr) != 1) {
        fprintf(stderr, "open-floor: not an IPv4 address: %s\n", argv[1]);
        return 2;
    }
    epfd = epoll_create1(0);
    struct conn *conns = calloc((size_t) max_in_flight, sizeof *conns);
    struct conn **idle = calloc((size_t) max_in_flight, sizeof *idle);
    long total = (long) (qps * seconds + 0.5);
    uint32_t *late_us = calloc((size_t) total + 1, sizeof *late_us);
    int opened = 0, n_idle = 0, in_flight = 0;
    /* connections opened up front, as the load driver's preconnect does: one per 1 000 QPS, 1 to 8 */
    int pre = (int) (qps / 1000);
    pre = pre < 1 ? 1 : pre > 8 ? 8 : pre;
    for (; opened < pre && opened < max_in_flight; opened++) {
        open_conn(&conns[opened]);
        idle[n_idle++] = &conns[opened];
    }
    long sent = 0, ok = 0, dropped = 0, errors = 0, answered = 0;
    double interval_ns = 1e9 / qps;
    int64_t start = now_ns() + 100000000LL; /* 100 ms lead */
    struct epoll_event events[256];
    long k = 0;
    while (k < total || in_flight > 0) {
        int64_t now = now_ns();
        if (k < total) {
            int64_t due = start + (int64_t) (k * interval_ns);
            struct timespec timeout = {0, 0};
            if (due > now) {
                timeout.tv_sec = (due - now) / 1000000000LL;
                timeout.tv_nsec = (due - now) % 1000000000LL;
            }
            int n = epoll_pwait2(epfd, events, 256, &timeout, NULL);
            for (int i = 0; i < n; i++) {
                struct conn *c = events[i].data.ptr;
                int answer = readable(c);
                if (answer < 0) {
                    fprintf(stderr, "open-floor: connection closed\n");
                    return 1;
                }
                if (answer > 0) {
                    answered++;
                    answer == 1 ? ok++ : errors++;
                    in_flight--;
                    idle[n_idle++] = c;
                }
            }
            now = now_ns();
            for (; k < total && start + (int64_t) (k * interval_ns) <= now; k++) {
                int64_t due_k = start + (int64_t) (k * interval_ns);
                if (n_idle == 0 && opened < max_in_flight) {
                    open_conn(&conns[opened]);
                    idle[n_idle++] = &conns[opened++];
                }
                if (n_idle == 0) {
                    dropped++;
                    continue;
                }
                struct conn *c = idle[--n_idle];
                if (send(c->fd, REQUEST, sizeof REQUEST - 1, MSG_NOSIGNAL) != (ssize_t) (sizeof REQUEST - 1)) {
                    perror("open-floor: send");
                    return 1;
                }
                c->busy = 1;
                in_flight++;
                late_us[sent++] = (uint32_t) ((now - due_k) / 1000);
                now = now_ns();
            }
        } else {
            /* the step is over: wait up to 2 s for the answers in flight */
            int n = epoll_wait(epfd, events, 256, 2000);
            if (n == 0) {
                break;
            }
            for (int i = 0; i < n; i++) {
                struct conn *c = events[i].data.ptr;
                int answer = readable(c);
                if (answer < 0) {
                    /* closed with its request unanswered: counted as an error, never read again */
                    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
                    close(c->fd);
                    if (c->busy) {
                        answered++;
                        errors++;
                        in_flight--;
                    }
                } else if (answer > 0) {
                    answered++;
                    answer == 1 ? ok++ : errors++;
                    in_flight--;
                }
            }
        }
    }
    qsort(late_us, (size_t) sent, sizeof *late_us, cmp_u32);
#define PCT(p) (sent ? late_us[(long) ((p) * (sent - 1))] : 0)
    printf("open_floor qps=%.0f sent=%ld ok=%ld dropped=%ld errors=%ld unanswered=%ld connections=%d p50_us=%u p99_us=%u "
           "p999_us=%u max_us=%u\n",
           qps, sent, ok, dropped, errors, sent - answered, opened, PCT(0.5), PCT(0.99), PCT(0.999),
           sent ? late_us[sent - 1] : 0);
    return 0;
}
