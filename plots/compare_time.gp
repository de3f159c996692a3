# compare_time.gp: the labels side by side on one time axis: for each label the run its
# verdict rests on, from that run's start.
# datafile: nseries blocks (separated by two blank lines), each starting with a header line
#   `time "LABEL ..."`, then `T V` rows (T in the unit of xlabel); NaN where no value.
# Variables: nseries, xlabel, ylabel, points (1: points, for heap after GC; 0: lines),
#   paired (1: blocks come in pairs, p50 then p99 of one label: one colour per label,
#   the first of the pair dashed).
load plotdir.'/common.gp'
set xlabel xlabel
set ylabel ylabel
# Room above and right of the data, so no point sits on (and is cut by) the frame.
set offsets 0, graph 0.02, graph 0.06, 0
style = points ? "with points pt 7 ps 0.5" : "with lines"
plotcmd = "plot for [i=0:nseries-1] datafile index i using 1:2 " . style . \
          " lt i/(1+paired)+1 dt 1+paired*(1-i%2) title columnheader(2)"
load plotdir.'/draw.gp'
