/*
 * The logical topology: declared on a machine without -qmp-geom, its
 * dimensions and this node's coordinates (lexicographic, dimension 0
 * fastest), node numbers from coordinates and coordinates from node numbers
 * both ways for every node. (A second declaration: the errors program.)
 */
#include "qmptest.h"

/* Coordinates of node in dims, dimension 0 fastest. */
static void lex_coords(int node, const int dims[4], int c[4])
{
    for (int i = 0; i < 4; i++) {
        c[i] = node % dims[i];
        node /= dims[i];
    }
}

/* Every node's coordinates and back, by the three calls that give them. */
static int every_node(const int dims[4])
{
    int bad = 0, nodes = QMP_get_number_of_nodes();
    for (int n = 0; n < nodes; n++) {
        int want[4], two[4];
        lex_coords(n, dims, want);
        int *from = QMP_get_logical_coordinates_from(n);
        QMP_get_logical_coordinates_from2(two, n);
        for (int i = 0; i < 4; i++) {
            bad += check(from && from[i] == want[i], "coordinates_from(%d)[%d] wrong", n, i);
            bad += check(two[i] == want[i], "coordinates_from2(%d)[%d] = %d, want %d", n, i, two[i], want[i]);
        }
        free(from);
        int back = QMP_get_node_number_from(want);
        bad += check(back == n, "node_number_from(coordinates of %d) = %d", n, back);
    }
    return bad;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int bad = 0, dims[4], node = QMP_get_node_number();
    if (!grid_dims(QMP_get_number_of_nodes(), dims)) {
        check(0, "%d nodes: not a power of 2 up to 256", QMP_get_number_of_nodes());
        return finish(1);
    }
    bad += check(!QMP_logical_topology_is_declared(), "a logical topology is declared before the program declares one");
    QMP_status_t s = QMP_declare_logical_topology(dims, 4);
    bad += check(s == QMP_SUCCESS, "QMP_declare_logical_topology: %s", status_name(s));
    bad += check(QMP_logical_topology_is_declared(), "QMP_logical_topology_is_declared is false after the declaration");
    bad += check(QMP_get_logical_number_of_dimensions() == 4, "logical dimensions %d",
                 QMP_get_logical_number_of_dimensions());

    const int *ld = QMP_get_logical_dimensions(), *lc = QMP_get_logical_coordinates();
    int want[4];
    lex_coords(node, dims, want);
    for (int i = 0; i < 4; i++) {
        bad += check(ld[i] == dims[i], "logical dimension %d is %d, want %d", i, ld[i], dims[i]);
        bad += check(lc[i] == want[i], "logical coordinate %d is %d, want %d", i, lc[i], want[i]);
    }
    if (node == 0)
        say("logical dimensions %d %d %d %d", ld[0], ld[1], ld[2], ld[3]);
    say("logical coordinates %d %d %d %d", lc[0], lc[1], lc[2], lc[3]);
    bad += every_node(dims);

    return finish(bad);
}
