# draw.gp: draws the picture whose plot command is in the string `plotcmd` twice, as
# outfile.svg and outfile.png (terminals from common.gp).  Each script ends with
#   load plotdir.'/draw.gp'
do for [fmt in 'svg png'] {
	eval (fmt eq 'svg' ? svg_term : png_term)
	set output outfile.'.'.fmt
	eval plotcmd
}
set output
