/* SPDX-License-Identifier: GPL-2.0 */
/* The sockets and the record flow of the sockmap hand-off test (io.c). */
#ifndef SOCKMAP_IO_H
#define SOCKMAP_IO_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#include "check.h"

#define IO_SIZE		65536
#define PORT_BASE	23000

/* A switch of the verdict state: what op_insert() and the others act on. */
struct map_op {
	int map_fd;
	int ctl_fd;
	int fd;
	__u64 mode;
};

__u64 now_ms(void);
unsigned int env_uint(const char *name, unsigned int def);
int send_all(int fd, const unsigned char *buf, size_t len);
void *sender(void *arg);
ssize_t side_read(struct check *c, struct side *s, unsigned char *buf);
void read_for(struct check *c, struct side *sides, int nsides,
	      unsigned char *buf, unsigned int ms);
bool drain(struct check *c, struct side *s, unsigned char *buf);
int switch_to(struct flow *f, unsigned char new_sides, const char *what,
	      int (*op)(void *), void *arg);
int op_insert(void *arg);
int op_remove(void *arg);
int op_mode(void *arg);
unsigned char mode_sides(__u64 mode);
int vsock_pair(unsigned int port, int *tx, int *rx);
unsigned int next_port(void);
int send_records(struct flow *f, __u32 limit);

#endif
