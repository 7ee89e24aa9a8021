/* http_flood - a flood of complete HTTP requests, for the exporter's tests
 * and measurements (tests/integration/exporter_flood.sh,
 * bench/exporter_http.sh): CLIENTS threads, each connecting to 127.0.0.1:PORT
 * from SRC (an address of 127/8), sending a whole GET request for PATH and
 * closing, over and over for SECONDS. Prints the connections made and
 * refused (connect failed) on stdout.
 *
 *   http_flood PORT CLIENTS SECONDS [SRC [PATH]]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;
static const char *src = "127.0.0.1", *path = "/metrics";
static double until;
static atomic_long made, failed;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *client(void *arg)
{
	(void)arg;
	char req[512];
	int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
	struct sockaddr_in from = {.sin_family = AF_INET}, to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, src, &from.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	while (now_s() < until) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			usleep(1000);
			continue;
		}
		int one = 1; /* the port picked at connect: TIME_WAIT ones reused on loopback */
		setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
		if (bind(fd, (struct sockaddr *)&from, sizeof from) < 0 || connect(fd, (struct sockaddr *)&to, sizeof to) < 0) {
			atomic_fetch_add(&failed, 1);
			close(fd);
			usleep(1000);
			continue;
		}
		if (send(fd, req, (size_t)n, MSG_NOSIGNAL) == n)
			atomic_fetch_add(&made, 1);
		close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: http_flood PORT CLIENTS SECONDS [SRC [PATH]]\n");
		return 2;
	}
	port = atoi(argv[1]);
	int clients = atoi(argv[2]);
	double secs = atof(argv[3]);
	if (argc > 4)
		src = argv[4];
	if (argc > 5)
		path = argv[5];
	if (port <= 0 || port > 65535 || clients <= 0 || clients > 1000 || !(secs > 0)) {
		fprintf(stderr, "http_flood: bad arguments\n");
		return 2;
	}
	until = now_s() + secs;
	pthread_t *th = calloc((size_t)clients, sizeof *th);
	for (int i = 0; i < clients; i++)
		pthread_create(&th[i], NULL, client, NULL);
	for (int i = 0; i < clients; i++)
		pthread_join(th[i], NULL);
	printf("flood: %ld connections in %.0f s (%.0f/s), %ld failed to connect\n", (long)made, secs, (double)made / secs,
	       (long)failed);
	free(th);
	return 0;
}
