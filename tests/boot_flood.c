/*
 * tests/boot_flood.c — a stranger flooding a bootstrap rendezvous:
 *   boot_flood HOST:PORT SECONDS
 * connects and closes as fast as it can for SECONDS, by turns closing at
 * once, sending half a frame header, and sending a header the server must
 * refuse, then prints "boot_flood: N connections in S s".  Exit 0 unless it
 * could not connect at all.  tests/boot_flood.sh checks that the waiting
 * job logs only a bounded number of lines and still runs afterwards.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3 || !strchr(argv[1], ':')) {
        fprintf(stderr, "usage: boot_flood HOST:PORT SECONDS\n");
        return 2;
    }
    char host[64];
    snprintf(host, sizeof host, "%.*s", (int)(strchr(argv[1], ':') - argv[1]), argv[1]);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(strchr(argv[1], ':') + 1)) };
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        fprintf(stderr, "boot_flood: '%s' is not an IPv4 address\n", host);
        return 2;
    }
    double secs = atof(argv[2]), t0 = now();
    static const unsigned char junk[64] = "GET / HTTP/1.0\r\n\r\nnot a plexus frame at all, just noise....";
    long n = 0, failed = 0;
    while (now() - t0 < secs) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) break;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            n++;
            if (n % 3 == 1) {
                ssize_t w = send(fd, junk, 7, MSG_NOSIGNAL);   /* half a header */
                (void)w;
            } else if (n % 3 == 2) {
                ssize_t w = send(fd, junk, sizeof junk, MSG_NOSIGNAL);   /* a bad header */
                (void)w;
            }
        } else {
            failed++;
            usleep(1000);
        }
        close(fd);
    }
    printf("boot_flood: %ld connections in %.1f s (%ld refused by the kernel)\n", n, now() - t0, failed);
    return n > 0 ? 0 : 1;
}
