# common.gp: what every picture of `soak report` shares.  Loaded by each script with
#   load plotdir.'/common.gp'
# Variables given with -e: plotdir, datafile, outfile (path without extension: the script
# writes outfile.svg and outfile.png), title, and the script's own (see its header).
# Output is deterministic: fixed sizes and fonts, no dates in the SVG.

svg_term = "set terminal svg size 800,450 dynamic noenhanced font 'sans,11' background '#ffffff'"
png_term = "set terminal pngcairo size 800,450 noenhanced font 'sans,10' background '#ffffff'"

set title title
# The grid's width is its own: linetype 1's (below) lasts from one picture to the next in
# one gnuplot (set linetype survives reset), and soak draws many pictures in one.
set grid xtics ytics lc rgb '#dddddd' lt 1 lw 1 dt 1
set border 3 lc rgb '#555555'
set tics nomirror out
set key outside bottom center horizontal nobox samplen 2 spacing 1.1 maxrows 3
set bmargin 6
set yrange [0:*]
set xrange [0:*]
set datafile missing 'NaN'

# Colour-blind safe palette (Okabe-Ito), one per series in order.
set linetype 1 lc rgb '#0072b2' lw 2 pt 7 ps 0.8
set linetype 2 lc rgb '#d55e00' lw 2 pt 5 ps 0.8
set linetype 3 lc rgb '#009e73' lw 2 pt 9 ps 0.8
set linetype 4 lc rgb '#cc79a7' lw 2 pt 11 ps 0.8
set linetype 5 lc rgb '#e69f00' lw 2 pt 13 ps 0.8
set linetype 6 lc rgb '#56b4e9' lw 2 pt 7 ps 0.8
set linetype 7 lc rgb '#000000' lw 2 pt 5 ps 0.8
set linetype 8 lc rgb '#f0e442' lw 2 pt 9 ps 0.8
set linetype cycle 8
