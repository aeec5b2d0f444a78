/* Copyright (c) virtinfra.hyperconverged contributors
 * GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The delay proxy of bench/delay_proxy.py (which builds and runs this; its docstring says why it exists).
 *
 *     delay_proxy LISTEN_HOST LISTEN_PORT TO_HOST TO_PORT DELAY_NS PARENT_PID
 *
 * It ends when PARENT_PID does (PR_SET_PDEATHSIG), however that ends: a bench or test killed midway leaves no proxy.
 *
 * One thread, one epoll loop. Every chunk read is queued on its direction with the time it is due (read time +
 * delay). The delay is the same for every chunk, so the chunks are due in the order they were read: one FIFO of
 * (due, direction) wake-ups, whose head bounds the wait of epoll_pwait2 (Linux 5.11, glibc 2.35), which takes
 * nanoseconds; epoll_wait takes whole milliseconds, coarser than the 0.25 ms the bench measures. Each chunk costs a
 * read, a write and its share of the waits: a timerfd would add two system calls per chunk. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define READ_SIZE 262144

struct chunk {
    struct chunk *next;
    uint64_t due;
    size_t len, sent;   /* len 0: the end of the stream */
    char data[];
};

struct conn;

struct direction {      /* bytes read from src, written to dst */
    struct conn *conn;
    int src, dst;
    struct chunk *head, *tail;
    int reading, done;
};

struct end {            /* what epoll reports for one socket: the direction reading it and the one writing it */
    struct direction *reader, *writer;
    uint32_t mask;      /* 0: not registered */
};

struct conn {
    struct direction way[2];
    struct end ends[2];
    int closed;
    long pending;       /* wake-ups in the FIFO that point here */
    struct conn *next_dead;
};

struct wake { uint64_t due; struct direction *way; };

static int epoll_fd;
static uint64_t delay_ns;
static struct wake *fifo;
static size_t fifo_cap, fifo_head, fifo_len;
static char buffer[READ_SIZE];
static struct conn *dead;   /* closed, no wake-up left: freed after the batch of events, which may still name them */

static void bury(struct conn *c) {
    if (c->closed && !c->pending) c->next_dead = dead, dead = c;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) { perror(what); exit(1); }

static void fifo_push(uint64_t due, struct direction *way) {
    if (fifo_len == fifo_cap) {
        size_t cap = fifo_cap ? fifo_cap * 2 : 1024;
        struct wake *grown = malloc(cap * sizeof *grown);
        if (!grown) die("malloc");
        for (size_t i = 0; i < fifo_len; i++) grown[i] = fifo[(fifo_head + i) % fifo_cap];
        free(fifo);
        fifo = grown, fifo_cap = cap, fifo_head = 0;
    }
    fifo[(fifo_head + fifo_len++) % fifo_cap] = (struct wake){due, way};
    way->conn->pending++;
}

/* epoll reports a hang-up whatever the mask: a socket that waits for nothing is taken out, or it would report it
 * on every turn of the loop. */
static void set_mask(struct end *end, int fd, uint32_t mask) {
    if (mask == end->mask) return;
    struct epoll_event event = {.events = mask, .data.ptr = end};
    int op = !mask ? EPOLL_CTL_DEL : !end->mask ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
    if (epoll_ctl(epoll_fd, op, fd, &event) < 0) die("epoll_ctl");
    end->mask = mask;
}

static struct end *end_of(struct conn *c, int fd) { return c->way[0].src == fd ? &c->ends[0] : &c->ends[1]; }

static void close_conn(struct conn *c) {
    if (c->closed) return;
    c->closed = 1;
    for (int i = 0; i < 2; i++) {
        set_mask(&c->ends[i], c->way[i].src, 0);
        close(c->way[i].src);
        for (struct chunk *k = c->way[i].head, *next; k; k = next) next = k->next, free(k);
        c->way[i].head = c->way[i].tail = NULL;
    }
    bury(c);
}

/* Write what is due; wait for the socket to take more when it is full. */
static void flush(struct direction *way, uint64_t now) {
    struct conn *c = way->conn;
    struct end *target = end_of(c, way->dst);
    while (way->head && way->head->due <= now) {
        struct chunk *k = way->head;
        if (k->len == 0) {
            shutdown(way->dst, SHUT_WR);
            way->done = 1;
        } else {
            ssize_t n = send(way->dst, k->data + k->sent, k->len - k->sent, MSG_NOSIGNAL);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                set_mask(target, way->dst, target->mask | EPOLLOUT);
                return;
            }
            if (n < 0) { close_conn(c); return; }   /* the peer is gone (reset, broken pipe): so is the connection */
            k->sent += (size_t)n;
            if (k->sent < k->len) continue;
        }
        way->head = k->next;
        if (!way->head) way->tail = NULL;
        free(k);
    }
    set_mask(target, way->dst, target->mask & ~(uint32_t)EPOLLOUT);
    if (c->way[0].done && c->way[1].done) close_conn(c);
}

static void queue(struct direction *way, uint64_t due, const char *data, size_t len) {
    struct chunk *k = malloc(sizeof *k + len);
    if (!k) die("malloc");
    k->next = NULL, k->due = due, k->len = len, k->sent = 0;
    memcpy(k->data, data, len);
    if (way->tail) way->tail->next = k; else way->head = k;
    way->tail = k;
    fifo_push(due, way);
}

static void read_from(struct direction *way) {
    uint64_t due = now_ns() + delay_ns;
    for (;;) {
        ssize_t n = recv(way->src, buffer, sizeof buffer, 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n < 0 && errno == EINTR) continue;
        queue(way, due, buffer, n > 0 ? (size_t)n : 0);
        if (n > 0 && (size_t)n < sizeof buffer) return;   /* drained: epoll says when there is more */
        if (n <= 0) {   /* the end, or an error read as the end: passed on after the delay */
            struct end *source = end_of(way->conn, way->src);
            way->reading = 0;
            set_mask(source, way->src, source->mask & ~(uint32_t)EPOLLIN);
            return;
        }
    }
}

static int connect_to(const char *host, const char *port) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found;
    if (getaddrinfo(host, port, &hints, &found)) return -1;
    int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) < 0) close(fd), fd = -1;
    freeaddrinfo(found);
    return fd;
}

static void accept_all(int listener, const char *to_host, const char *to_port) {
    for (;;) {
        int client = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client < 0) return;
        int server = connect_to(to_host, to_port);   /* blocking: a local server answers at once */
        if (server < 0) { close(client); continue; }
        int one = 1;
        setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (fcntl(server, F_SETFL, fcntl(server, F_GETFL) | O_NONBLOCK) < 0) die("fcntl");
        struct conn *c = calloc(1, sizeof *c);
        if (!c) die("calloc");
        c->way[0] = (struct direction){c, client, server, NULL, NULL, 1, 0};
        c->way[1] = (struct direction){c, server, client, NULL, NULL, 1, 0};
        c->ends[0] = (struct end){&c->way[0], &c->way[1], 0};   /* the client's socket */
        c->ends[1] = (struct end){&c->way[1], &c->way[0], 0};   /* the server's */
        set_mask(&c->ends[0], client, EPOLLIN);
        set_mask(&c->ends[1], server, EPOLLIN);
    }
}

static void expired(void) {
    uint64_t now = now_ns();
    while (fifo_len && fifo[fifo_head].due <= now) {
        struct direction *way = fifo[fifo_head].way;
        fifo_head = (fifo_head + 1) % fifo_cap, fifo_len--;
        struct conn *c = way->conn;
        c->pending--;
        if (c->closed) {
            bury(c);
            continue;
        }
        flush(way, now);
    }
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s LISTEN_HOST LISTEN_PORT TO_HOST TO_PORT DELAY_NS PARENT_PID\n", argv[0]);
        return 2;
    }
    /* The signal comes when the parent exits from now on; one that exited before this call is seen by its pid. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) die("prctl");
    if (getppid() != (pid_t)strtol(argv[6], NULL, 10)) return 1;
    delay_ns = strtoull(argv[5], NULL, 10);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *at;
    if (getaddrinfo(argv[1], argv[2], &hints, &at)) die("getaddrinfo");
    int listener = socket(at->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
    if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 || bind(listener, at->ai_addr, at->ai_addrlen) < 0 || listen(listener, 128) < 0) die("listen");
    freeaddrinfo(at);
    struct sockaddr_storage bound;
    socklen_t size = sizeof bound;
    getsockname(listener, (struct sockaddr *)&bound, &size);
    printf("%u\n", ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                      : ((struct sockaddr_in *)&bound)->sin_port));
    fflush(stdout);
    if ((epoll_fd = epoll_create1(EPOLL_CLOEXEC)) < 0) die("epoll_create1");
    static int listener_tag;   /* its address tells the listener apart from the ends */
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = &listener_tag};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &event) < 0) die("epoll_ctl");
    struct epoll_event events[64];
    for (;;) {
        struct timespec wait, *until = NULL;   /* NULL: nothing queued, wait for the sockets only */
        if (fifo_len) {
            uint64_t now = now_ns(), due = fifo[fifo_head].due, left = due > now ? due - now : 0;
            wait = (struct timespec){(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
            until = &wait;
        }
        int n = epoll_pwait2(epoll_fd, events, 64, until, NULL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("epoll_pwait2");
        for (int i = 0; i < n; i++) {
            void *tag = events[i].data.ptr;
            uint32_t what = events[i].events;
            if (tag == &listener_tag) { accept_all(listener, argv[3], argv[4]); continue; }
            struct end *end = tag;
            struct conn *c = end->reader->conn;
            if (c->closed) continue;   /* closed by an earlier event of this batch */
            if (what & EPOLLERR) { close_conn(c); continue; }
            /* A hang-up is read (the end of the stream) or written into (the error that closes the connection). */
            if (what & (EPOLLIN | EPOLLHUP) && end->reader->reading) read_from(end->reader);
            if (!c->closed && what & (EPOLLOUT | EPOLLHUP) && end->writer->head) flush(end->writer, now_ns());
        }
        expired();
        while (dead) {
            struct conn *c = dead;
            dead = c->next_dead;
            free(c);
        }
    }
}
