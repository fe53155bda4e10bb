/*
 * Kernel instances: a kernel file is a shared object built by the host gcc.
 * Every core gets its own instance, so its globals are private, as in an
 * Epiphany core's local memory. glibc returns an already loaded object when
 * the path (or file identity) matches, so each instance is loaded from its
 * own uniquely named copy on tmpfs, unlinked right after dlopen.
 */
#define _GNU_SOURCE
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void loader_make_global(void)
{
    static _Atomic int done;
    if (atomic_exchange(&done, 1))
        return;
    Dl_info info;
    if (dladdr((void *)loader_make_global, &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

const char *loader_scratch_dir(void)
{
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

int loader_copy_file(const char *from, int to_fd)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    char buf[1 << 16];
    ssize_t got;
    int rc = 0;
    while ((got = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < got;) {
            ssize_t put = write(to_fd, buf + off, (size_t)(got - off));
            if (put < 0) {
                if (errno == EINTR)
                    continue;
                rc = -1;
                break;
            }
            off += put;
        }
        if (rc)
            break;
    }
    if (got < 0)
        rc = -1;
    close(in);
    return rc;
}

/* RTLD_DEEPBIND makes an instance bind to its own globals even when the
 * host program defines symbols of the same names. Sanitizer runtimes refuse
 * it, so under ASan/TSan kernels bind the default way. */
static int deepbind(void)
{
    static int flag = -1;
    if (flag < 0)
        flag = (dlsym(RTLD_DEFAULT, "__asan_init") || dlsym(RTLD_DEFAULT, "__tsan_init")) ? 0 : RTLD_DEEPBIND;
    return flag;
}

void *loader_open_instance(const char *path, char *err, size_t errlen)
{
    static _Atomic unsigned long counter;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s/ebsp-kernel-%ld-%lu.so", loader_scratch_dir(), (long)getpid(),
             atomic_fetch_add(&counter, 1));
    int fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", copy, strerror(errno));
        return NULL;
    }
    int rc = loader_copy_file(path, fd);
    int saved = errno;
    close(fd);
    if (rc) {
        unlink(copy);
        snprintf(err, errlen, "cannot copy %s: %s", path, strerror(saved));
        return NULL;
    }
    void *h = dlopen(copy, RTLD_NOW | RTLD_LOCAL | deepbind());
    unlink(copy);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, errlen, "%s", why ? why : "dlopen failed");
        return NULL;
    }
    if (!dlsym(h, "main")) {
        snprintf(err, errlen, "%s has no main function; a kernel needs its own main", path);
        dlclose(h);
        return NULL;
    }
    kernel_libc_hook(h);
    return h;
}

ebsp_kernel_fn loader_entry(void *instance)
{
    ebsp_kernel_fn fn;
    void *sym = dlsym(instance, "main");
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

void loader_close_instance(void *instance)
{
    if (instance)
        dlclose(instance);
}
