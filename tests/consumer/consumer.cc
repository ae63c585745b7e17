// SPDX-License-Identifier: MIT
// Consumer in C++17: the header compiles as C++, the names link unmangled,
// and a capture has as many mounts as the kernel's /proc/self/mountinfo
// has lines.
#include <fstream>
#include <iostream>
#include <string>

#include <mntsnap.h>

int main()
{
	std::ifstream in("/proc/self/mountinfo");
	std::string line;
	size_t lines = 0;
	while (std::getline(in, line))
		lines++;

	MNTSNAP_OPTS(mntsnap_capture_opts, opts);
	opts.mask = MNTSNAP_F_ID_OLD | MNTSNAP_F_MOUNT_POINT;
	struct mntsnap_snapshot *snap = nullptr;
	int r = mntsnap_capture(&opts, &snap);
	if (r < 0) {
		std::cerr << "mntsnap_capture: " << mntsnap_strerror(r) << "\n";
		return 1;
	}
	size_t n = mntsnap_snapshot_count(snap);
	std::cout << n << " mounts, kernel " << lines << " lines\n";
	mntsnap_snapshot_free(snap);
	return n == lines && lines > 0 ? 0 : 1;
}
