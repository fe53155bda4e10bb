/* A bad EBSP_MESH: the mesh is read once per program, so the first host
 * call says why it fails, and the later ones fail without another line. */
#include <host_bsp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    printf("bsp_init: %d\n", bsp_init("e_mesh.elf", argc, argv));
    printf("bsp_begin: %d\n", bsp_begin(2));
    printf("ebsp_spmd: %d\n", ebsp_spmd());
    printf("bsp_end: %d\n", bsp_end());
    printf("bsp_init again: %d\n", bsp_init("e_mesh.elf", argc, argv));
    return 0;
}
