/* wrap_net.c - descriptors that are no files: sockets and pipes.
 *
 * socket, socketpair, accept, accept4, pipe and pipe2 give their new
 * descriptors a class at once (no fstat later); their data calls (read and
 * write in wrap_rw.c, recv/recvfrom/recvmsg and send/sendto/sendmsg here)
 * count time, bytes and a call in the class counters of the process
 * (region.h: struct fs_trace_class), split by main thread and others. They
 * have no file record. A socket's data calls also count in its endpoint
 * pair's entry of the peers table (peers.c); connect makes its endpoints
 * be read again, listen records a listening endpoint. Every wrapper
 * returns what the real call returned and leaves errno as it left it;
 * accept's and connect's waits are not timed (waiting for a peer is not
 * I/O).
 */
#include <errno.h>
#include <sys/socket.h>

#include "trace/count.h"

/* A descriptor made here: class cls, no record. errno kept (no call). */
FS_INLINE void made(int fd, int cls)
{
	if (fd >= 0 && fs_on())
		fs_fd_set_class(fd, cls);
}

FS_EXPORT int socket(int domain, int type, int protocol)
{
	int fd = FS_REAL(socket)(domain, type, protocol);
	made(fd, FS_TRACE_CLASS_SOCKET);
	return fd;
}

FS_EXPORT int socketpair(int domain, int type, int protocol, int sv[2])
{
	int r = FS_REAL(socketpair)(domain, type, protocol, sv);
	if (r == 0) {
		made(sv[0], FS_TRACE_CLASS_SOCKET);
		made(sv[1], FS_TRACE_CLASS_SOCKET);
	}
	return r;
}

/* A socket made by accept: errno kept (no call). */
FS_INLINE void made_accepted(int fd)
{
	if (fd >= 0 && fs_on())
		fs_fd_set_accepted(fd);
}

FS_EXPORT int accept(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
	int r = FS_REAL(accept)(fd, addr, len);
	made_accepted(r);
	return r;
}

FS_EXPORT int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags)
{
	int r = FS_REAL(accept4)(fd, addr, len, flags);
	made_accepted(r);
	return r;
}

FS_EXPORT int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	int r = FS_REAL(connect)(fd, addr, len);
	if (fs_on()) /* whatever it returned: a failed connect may still have changed the peer */
		fs_peer_forget(fd);
	return r;
}

FS_EXPORT int listen(int fd, int backlog)
{
	int r = FS_REAL(listen)(fd, backlog);
	if (r == 0 && fs_on())
		fs_peer_listen(fd);
	return r;
}

FS_EXPORT int pipe(int fds[2])
{
	int r = FS_REAL(pipe)(fds);
	if (r == 0) {
		made(fds[0], FS_TRACE_CLASS_PIPE);
		made(fds[1], FS_TRACE_CLASS_PIPE);
	}
	return r;
}

FS_EXPORT int pipe2(int fds[2], int flags)
{
	int r = FS_REAL(pipe2)(fds, flags);
	if (r == 0) {
		made(fds[0], FS_TRACE_CLASS_PIPE);
		made(fds[1], FS_TRACE_CLASS_PIPE);
	}
	return r;
}

/* Count a recv- or send-like call on e's class (a descriptor not seen
 * before is classified first: inherited, or made by a call not wrapped).
 * errno kept. */
static void net_done(struct fs_fd *e, int fd, int op, ssize_t r, uint64_t t0, uint64_t t1)
{
	if (__atomic_load_n(&e->rec, __ATOMIC_RELAXED) == FS_FD_UNKNOWN) {
		fs_fd_classify(fd);
		if (__atomic_load_n(&e->rec, __ATOMIC_RELAXED) == FS_FD_UNKNOWN)
			return; /* not open */
	}
	fs_count_nofile(e, fd, op, (int64_t)r, t0, t1, 0);
}

#define NET_CALL(name, op, ...) \
	struct fs_fd *e = fs_fd_get_any(fd); \
	if (!e) \
		return FS_REAL(name)(__VA_ARGS__); \
	uint64_t t0 = fs_now(); \
	ssize_t r = fs_real.name(__VA_ARGS__); \
	uint64_t t1 = fs_now(); \
	net_done(e, fd, op, r, t0, t1); \
	return r

FS_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	NET_CALL(recv, FS_TRACE_OP_READ, fd, buf, n, flags);
}

FS_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, __SOCKADDR_ARG addr, socklen_t *len)
{
	NET_CALL(recvfrom, FS_TRACE_OP_READ, fd, buf, n, flags, addr, len);
}

FS_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	NET_CALL(recvmsg, FS_TRACE_OP_READ, fd, msg, flags);
}

FS_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	NET_CALL(send, FS_TRACE_OP_WRITE, fd, buf, n, flags);
}

FS_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	NET_CALL(sendto, FS_TRACE_OP_WRITE, fd, buf, n, flags, addr, len);
}

FS_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	NET_CALL(sendmsg, FS_TRACE_OP_WRITE, fd, msg, flags);
}
