/* peers.c - which endpoints a socket's bytes went between.
 *
 * A socket's local and peer endpoints (getsockname, getpeername) are read
 * once, at its first data call (the job has connected or accepted it by
 * then), and the pair's entry in the region's peers table is cached in the
 * socket's fd entry (FS_FD_PEER_SHIFT): later calls cost no system call.
 * connect() forgets the cache (a datagram socket may connect after
 * sendto). A file, pipe or device never comes here (count.h:
 * fs_count_nofile looks at the class first).
 *
 * The table is claimed lock-free as the file records are (files.c): CAS
 * FREE -> CLAIMING, key written, READY with release. A process that opens
 * connection after connection (an HTTP loader without keep-alive: a new
 * local port each time) would fill it with pairs that differ only in their
 * local port, and lose the peer of everything after (a server accepting
 * connection after connection: only in the peer's port): so exact pairs
 * may take FS_TRACE_PEERS_EXACT entries, and the rest go to an entry with
 * the varying port set to 0 (kind FOLDED: the local port of a socket that
 * connected, the peer's of one accepted). What finds no entry at all goes
 * to entry 0, "(other peers)".
 */
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "trace/count.h"

#define CLAIM_SPINS 10000 /* a slot being claimed by another thread: waits this long, then entry 0 */

/* One socket address into an endpoint (all of *out written: it is
 * compared and hashed as bytes). */
static void endpoint_of(const struct sockaddr_storage *ss, socklen_t len, struct fs_trace_endpoint *out)
{
	memset(out, 0, sizeof *out);
	if (len < (socklen_t)sizeof(sa_family_t))
		return;
	if (ss->ss_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		out->family = FS_TRACE_FAM_INET;
		out->port = ntohs(a->sin_port);
		out->addr_len = 4;
		memcpy(out->addr, &a->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		out->port = ntohs(a->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) { /* a dual-stack socket's IPv4 peer */
			out->family = FS_TRACE_FAM_INET;
			out->addr_len = 4;
			memcpy(out->addr, a->sin6_addr.s6_addr + 12, 4);
		} else {
			out->family = FS_TRACE_FAM_INET6;
			out->addr_len = 16;
			memcpy(out->addr, &a->sin6_addr, 16);
		}
	} else if (ss->ss_family == AF_UNIX) {
		const struct sockaddr_un *a = (const struct sockaddr_un *)ss;
		size_t n = (size_t)len - offsetof(struct sockaddr_un, sun_path);
		if (n > sizeof a->sun_path)
			n = sizeof a->sun_path;
		out->family = FS_TRACE_FAM_UNIX;
		if (n == 0)
			return; /* unnamed (socketpair, a client that never bound) */
		const char *p = a->sun_path;
		size_t k = 0;
		if (p[0] == '\0') { /* abstract: "@" and the name */
			out->addr[k++] = '@';
			p++;
			n--;
		} else {
			n = strnlen(p, n);
		}
		size_t room = FS_TRACE_ADDR - 1 - k;
		memcpy(out->addr + k, p, n < room ? n : room);
		out->addr_len = (uint32_t)(k + (n < room ? n : room));
	} else {
		out->family = FS_TRACE_FAM_OTHER;
	}
}

static uint64_t key_hash(const struct fs_trace_endpoint *local, const struct fs_trace_endpoint *peer)
{
	uint64_t h = fs_trace_hash((const char *)local, sizeof *local);
	return h ^ fs_trace_hash((const char *)peer, sizeof *peer) * 31;
}

static int same_key(const struct fs_trace_peer *p, uint32_t kind, uint64_t hash,
		    const struct fs_trace_endpoint *local, const struct fs_trace_endpoint *peer)
{
	return p->hash == hash && p->kind == kind && !memcmp(&p->local, local, sizeof *local) &&
	       !memcmp(&p->peer, peer, sizeof *peer);
}

/* Whether entry i may be touched (its pages backed). */
static int backed(struct fs_trace_region *R, int i)
{
	return fs_region_back(R, offsetof(struct fs_trace_region, peers) + (size_t)i * sizeof(struct fs_trace_peer),
			      sizeof(struct fs_trace_peer));
}

/* The entry of (kind, local, peer), claimed if absent and fewer than
 * `limit` entries are claimed; 0 when none (table or limit reached: the
 * caller may fold), -1 when a page cannot be backed. */
static int find(uint32_t kind, const struct fs_trace_endpoint *local, const struct fs_trace_endpoint *peer,
		uint32_t limit)
{
	struct fs_trace_region *R = fs.region;
	uint64_t h = key_hash(local, peer);
	int slots = FS_TRACE_PEERS - 1;
	for (int k = 0; k < slots; k++) {
		int i = 1 + (int)((h + (uint64_t)k) % (uint64_t)slots);
		if (!backed(R, i))
			return -1;
		struct fs_trace_peer *p = &R->peers[i];
		uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
		if (st == FS_TRACE_FREE) {
			/* a place under the limit is taken before the entry: two
			 * threads that both saw one place left took both (193
			 * exact entries of 192: trace_peers, 2 of 6 runs) */
			if (__atomic_fetch_add(&R->npeers, 1, __ATOMIC_RELAXED) >= limit) {
				__atomic_fetch_sub(&R->npeers, 1, __ATOMIC_RELAXED);
				return 0;
			}
			if (__atomic_compare_exchange_n(&p->state, &st, FS_TRACE_CLAIMING, 0, __ATOMIC_ACQUIRE,
							__ATOMIC_ACQUIRE)) {
				p->kind = kind;
				p->hash = h;
				p->local = *local;
				p->peer = *peer;
				__atomic_store_n(&p->state, FS_TRACE_READY, __ATOMIC_RELEASE);
				return i;
			}
			__atomic_fetch_sub(&R->npeers, 1, __ATOMIC_RELAXED); /* another thread took the entry */
		}
		for (int spin = 0; st == FS_TRACE_CLAIMING && spin < CLAIM_SPINS; spin++)
			st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
		if (st == FS_TRACE_CLAIMING)
			return 0; /* a claimer interrupted (by this thread's signal handler?): give up */
		if (same_key(p, kind, h, local, peer))
			return i;
	}
	return 0;
}

/* The entry of a socket with endpoints (local, peer): exact, else folded
 * over the port that varies from one connection to the next (the local
 * one of a socket that connected, the peer's of one accepted), else 0
 * (blind flag set); -1: no room to back it. */
static int entry_for(struct fs_trace_endpoint *local, struct fs_trace_endpoint *peer, int accepted)
{
	int i = find(FS_TRACE_PEER_CONNECTED, local, peer, FS_TRACE_PEERS_EXACT);
	if (i == 0 && (local->family == FS_TRACE_FAM_INET || local->family == FS_TRACE_FAM_INET6)) {
		if (accepted)
			peer->port = 0;
		else
			local->port = 0;
		i = find(FS_TRACE_PEER_FOLDED, local, peer, FS_TRACE_PEERS - 1);
	}
	if (i == 0) {
		__atomic_fetch_or(&fs.region->blind, FS_TRACE_BLIND_PEERS_FULL, __ATOMIC_RELAXED);
		if (!backed(fs.region, 0))
			return -1;
	}
	return i;
}

int fs_peer_of(struct fs_fd *e, int fd, int call_ok)
{
	uint32_t fl = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
	if (FS_LIKELY(fl & FS_FD_PEER_MASK))
		return (int)(fl >> FS_FD_PEER_SHIFT) - 1;
	int saved = errno;
	struct sockaddr_storage ss;
	struct fs_trace_endpoint local, peer;
	socklen_t len = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		endpoint_of(&ss, len, &local);
	else
		memset(&local, 0, sizeof local);
	len = sizeof ss;
	int cache = 1;
	if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0) {
		endpoint_of(&ss, len, &peer);
	} else {
		/* not connected: a datagram socket used with sendto/recvfrom
		 * (cached), or a stream socket whose connect has not completed
		 * (its call failed: asked again next time) */
		cache = call_ok && errno == ENOTCONN;
		memset(&peer, 0, sizeof peer);
	}
	errno = saved;
	int i = entry_for(&local, &peer, (fl & FS_FD_ACCEPTED) != 0);
	if (i >= 0 && cache) {
		uint32_t now = (fl & ~FS_FD_PEER_MASK) | ((uint32_t)(i + 1) << FS_FD_PEER_SHIFT);
		__atomic_compare_exchange_n(&e->flags, &fl, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
	return i;
}

void fs_peer_forget(int fd)
{
	struct fs_fd *e = fs_fd_entry(fd);
	if (!e)
		return;
	uint32_t fl = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
	while ((fl & FS_FD_PEER_MASK) &&
	       !__atomic_compare_exchange_n(&e->flags, &fl, fl & ~FS_FD_PEER_MASK, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void fs_peer_listen(int fd)
{
	int saved = errno;
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
		struct fs_trace_endpoint local, none;
		endpoint_of(&ss, len, &local);
		memset(&none, 0, sizeof none);
		if (find(FS_TRACE_PEER_LISTEN, &local, &none, FS_TRACE_PEERS - 1) == 0)
			__atomic_fetch_or(&fs.region->blind, FS_TRACE_BLIND_PEERS_FULL, __ATOMIC_RELAXED);
	}
	errno = saved;
}
