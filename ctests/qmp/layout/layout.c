/*
 * QMP_layout_grid on a lattice of 8 x 4 x 4 x 16 sites with no logical
 * topology declared: the layout declares one (its dimensions divide the
 * lattice's, their product the number of nodes), the subgrid is the lattice
 * divided by it, and the subgrids tile the lattice. The dimensions chosen
 * are printed: QMP programs' data placement depends on them.
 */
#include "qmptest.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int lattice[4] = {8, 4, 4, 16}, n = QMP_get_number_of_nodes();
    QMP_status_t s = QMP_layout_grid(lattice, 4);
    int bad = check(s == QMP_SUCCESS, "QMP_layout_grid: %s", status_name(s));
    bad += check(QMP_logical_topology_is_declared(), "no logical topology after QMP_layout_grid");
    if (bad)
        return finish(bad);
    bad += check(QMP_get_logical_number_of_dimensions() == 4, "%d logical dimensions", QMP_get_logical_number_of_dimensions());
    const int *ld = QMP_get_logical_dimensions(), *sub = QMP_get_subgrid_dimensions(), *lc = QMP_get_logical_coordinates();
    int nodes = 1, sites = 1;
    for (int i = 0; i < 4; i++) {
        bad += check(ld[i] > 0 && lattice[i] % ld[i] == 0, "logical dimension %d is %d", i, ld[i]);
        bad += check(sub[i] * ld[i] == lattice[i], "subgrid dimension %d is %d", i, sub[i]);
        nodes *= ld[i];
        sites *= sub[i];
    }
    bad += check(nodes == n, "a logical machine of %d nodes", nodes);
    bad += check(QMP_get_number_of_subgrid_sites() == sites, "%d subgrid sites, want %d", QMP_get_number_of_subgrid_sites(), sites);
    int total = QMP_get_number_of_subgrid_sites();
    bad += check(QMP_sum_int(&total) == QMP_SUCCESS && total == 8 * 4 * 4 * 16, "the subgrids hold %d sites", total);
    if (QMP_get_node_number() == 0)
        say("logical %d %d %d %d subgrid %d %d %d %d sites %d", ld[0], ld[1], ld[2], ld[3], sub[0], sub[1], sub[2], sub[3], sites);
    say("first site %d %d %d %d", lc[0] * sub[0], lc[1] * sub[1], lc[2] * sub[2], lc[3] * sub[3]);
    return finish(bad);
}
