// SPDX-License-Identifier: MIT
/* /dev/null on closed standard descriptors (stdfds.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "err.h"
#include "stdfds.h"

int zcs_stdfds_guard(char *err, size_t errlen)
{
	int opened = 0;

	for (int fd = 0; fd <= 2; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* open returns the lowest free number: this one, since the lower ones are open */
		nfd = open("/dev/null", (fd == 0 ? O_RDONLY : O_WRONLY));
		if (nfd < 0)
			return zcs_err_errno(err, errlen, "fd %d is closed and /dev/null cannot be opened",
					     fd);
		if (nfd != fd) {
			close(nfd);
			return zcs_err(err, errlen, -EBADF, "fd %d is closed but /dev/null became fd %d",
				       fd, nfd);
		}
		opened |= 1 << fd;
	}
	return opened;
}
