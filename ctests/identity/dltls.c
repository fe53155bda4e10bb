/* A library loaded by dlopen with a __thread variable of its own (dynamic
 * TLS, reached through the thread's DTV): ctests/bsplib/conform_identity. */
static __thread long value;

void dltls_set(long v)
{
    value = v;
}

long dltls_get(void)
{
    return value;
}

long *dltls_addr(void)
{
    return &value;
}
