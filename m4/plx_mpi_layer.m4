# m4/plx_mpi_layer.m4 -- which MPIs libplexus-mpi is built for.
#
# libplexus-mpi intercepts MPI's C calls, and MPI's C ABI differs between
# implementations, so the layer is compiled once per MPI: at most one Open
# MPI (libplexus-mpi-openmpi) and one MPICH-ABI MPI (MPICH, MVAPICH, Intel
# MPI: libplexus-mpi-mpich).
#
#   (not given)              auto: mpicc.openmpi and mpicc.mpich when found
#   --with-mpi=W[,W...]      exactly these compiler wrappers (required)
#   --without-mpi            no MPI layer
#
# Flags come from the wrapper itself (Open MPI: -showme:compile/-showme:link;
# MPICH: -compile-info/-link-info), the flavour from <mpi.h> (OPEN_MPI or
# MPICH_VERSION).  Sets, per flavour F in openmpi, mpich:
#   PLX_MPI_F_CPPFLAGS, PLX_MPI_F_LIBS, PLX_MPICC_F (AC_SUBST),
#   the automake conditional PLX_MPI_F, PLX_MPICC_F in plx_config.h,
# and PLX_MPI_LAYERS ("openmpi mpich", what was built) in plx_config.h.

# _PLX_MPI_WRAPPER_FLAGS(WRAPPER): sets plx_w_cppflags, plx_w_libs, or
# leaves both empty when the wrapper answers neither way.
AC_DEFUN([_PLX_MPI_WRAPPER_FLAGS], [
  plx_w_cppflags= plx_w_libs= plx_w_words=
  if plx_w_c=`$1 -showme:compile 2>/dev/null` && plx_w_l=`$1 -showme:link 2>/dev/null`; then
    plx_w_words="$plx_w_c $plx_w_l"
  elif plx_w_c=`$1 -compile-info 2>/dev/null` && plx_w_l=`$1 -link-info 2>/dev/null`; then
    # MPICH prints a whole command: drop the compiler (first word)
    plx_w_words="`echo $plx_w_c | cut -d' ' -f2-` `echo $plx_w_l | cut -d' ' -f2-`"
  fi
  for plx_w in $plx_w_words; do
    AS_CASE([$plx_w],
      [-I*|-D*], [AS_CASE([" $plx_w_cppflags "], [*" $plx_w "*], [],
                          [plx_w_cppflags="$plx_w_cppflags $plx_w"])],
      [-L*|-l*|-Wl,-rpath*|-Wl,--enable-new-dtags], [AS_CASE([" $plx_w_libs "], [*" $plx_w "*], [],
                          [plx_w_libs="$plx_w_libs $plx_w"])])
  done
])

AC_DEFUN([PLX_CHECK_MPI_LAYER], [
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--with-mpi=MPICC@<:@,MPICC...@:>@],
      [build libplexus-mpi (the MPI drop-in layer) for the MPI of each compiler wrapper
       (one Open MPI and one MPICH-ABI MPI at most; default: mpicc.openmpi and mpicc.mpich
       when found; --without-mpi: none)])],
    [], [with_mpi=auto])
  plx_mpi_openmpi=no plx_mpi_mpich=no plx_mpi_layers= plx_mpi_why=
  PLX_MPI_OPENMPI_CPPFLAGS= PLX_MPI_OPENMPI_LIBS= PLX_MPICC_OPENMPI=
  PLX_MPI_MPICH_CPPFLAGS= PLX_MPI_MPICH_LIBS= PLX_MPICC_MPICH=
  AS_CASE(["$with_mpi"],
    [no], [plx_mpi_list= plx_mpi_required=no plx_mpi_why="--without-mpi"],
    [auto|yes], [plx_mpi_list="mpicc.openmpi mpicc.mpich" plx_mpi_required=`test "x$with_mpi" = xyes && echo yes || echo no`],
    [plx_mpi_list=`echo "$with_mpi" | tr ',' ' '` plx_mpi_required=yes])
  for plx_mpicc in $plx_mpi_list; do
    AC_MSG_CHECKING([MPI of $plx_mpicc for libplexus-mpi])
    if ! command -v "$plx_mpicc" >/dev/null 2>&1; then
      AC_MSG_RESULT([not found])
      AS_IF([test "x$plx_mpi_required" = xyes], [AC_MSG_ERROR([--with-mpi: no compiler wrapper '$plx_mpicc'])])
      plx_mpi_why="$plx_mpi_why $plx_mpicc: not found;"
      continue
    fi
    _PLX_MPI_WRAPPER_FLAGS([$plx_mpicc])
    plx_save_CPPFLAGS=$CPPFLAGS plx_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $plx_w_cppflags" LIBS="$plx_w_libs $LIBS"
    plx_flavour=unknown plx_has_h=no
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [])], [plx_has_h=yes])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifndef OPEN_MPI
#error not Open MPI
#endif]], [])], [plx_flavour=openmpi],
      [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifndef MPICH_VERSION
#error not MPICH
#endif]], [])], [plx_flavour=mpich])])
    plx_link=no
    AS_IF([test $plx_flavour != unknown],
      [AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
         [[int provided; return PMPI_Init_thread(0, 0, MPI_THREAD_SINGLE, &provided) + MPI_Grequest_complete(MPI_REQUEST_NULL);]])],
         [plx_link=yes])])
    CPPFLAGS=$plx_save_CPPFLAGS LIBS=$plx_save_LIBS
    dnl Debian ships the wrapper (package mpich) apart from the header (libmpich-dev)
    AS_IF([test $plx_has_h = no], [plx_why_one="no mpi.h with its flags ($plx_w_cppflags; Debian: libmpich-dev / libopenmpi-dev)"],
          [test $plx_flavour = unknown], [plx_why_one="neither Open MPI nor MPICH-ABI (no OPEN_MPI / MPICH_VERSION in its mpi.h)"],
          [test $plx_link = no], [plx_why_one="cannot link a PMPI program with its flags ($plx_w_cppflags $plx_w_libs)"],
          [eval "test x\$plx_mpi_$plx_flavour = xyes"], [plx_why_one="a $plx_flavour layer is already built from another wrapper"],
          [plx_why_one=])
    if test -n "$plx_why_one"; then
      AC_MSG_RESULT([skipped: $plx_why_one])
      AS_IF([test "x$plx_mpi_required" = xyes], [AC_MSG_ERROR([--with-mpi=$plx_mpicc: $plx_why_one])])
      plx_mpi_why="$plx_mpi_why $plx_mpicc: $plx_why_one;"
      continue
    fi
    AC_MSG_RESULT([$plx_flavour])
    AS_IF([test $plx_flavour = openmpi],
      [plx_mpi_openmpi=yes PLX_MPICC_OPENMPI=$plx_mpicc
       PLX_MPI_OPENMPI_CPPFLAGS=`echo $plx_w_cppflags` PLX_MPI_OPENMPI_LIBS=`echo $plx_w_libs`],
      [plx_mpi_mpich=yes PLX_MPICC_MPICH=$plx_mpicc
       PLX_MPI_MPICH_CPPFLAGS=`echo $plx_w_cppflags` PLX_MPI_MPICH_LIBS=`echo $plx_w_libs`])
    plx_mpi_layers=`echo $plx_mpi_layers $plx_flavour`
  done
  AC_SUBST([PLX_MPI_OPENMPI_CPPFLAGS])
  AC_SUBST([PLX_MPI_OPENMPI_LIBS])
  AC_SUBST([PLX_MPICC_OPENMPI])
  AC_SUBST([PLX_MPI_MPICH_CPPFLAGS])
  AC_SUBST([PLX_MPI_MPICH_LIBS])
  AC_SUBST([PLX_MPICC_MPICH])
  AC_DEFINE_UNQUOTED([PLX_MPI_LAYERS], ["$plx_mpi_layers"],
                     [The MPIs libplexus-mpi was built for (space-separated: openmpi, mpich).])
  AC_DEFINE_UNQUOTED([PLX_MPICC_OPENMPI], ["$PLX_MPICC_OPENMPI"], [Compiler wrapper of the Open MPI layer.])
  AC_DEFINE_UNQUOTED([PLX_MPICC_MPICH], ["$PLX_MPICC_MPICH"], [Compiler wrapper of the MPICH layer.])
  AM_CONDITIONAL([PLX_MPI_OPENMPI], [test "x$plx_mpi_openmpi" = xyes])
  AM_CONDITIONAL([PLX_MPI_MPICH], [test "x$plx_mpi_mpich" = xyes])
  AS_IF([test -n "$plx_mpi_layers"],
        [plx_mpi_summary="`echo $plx_mpi_layers | sed 's/\([[a-z]]*\)/libplexus-mpi-\1/g'`"],
        [plx_mpi_summary="none"])
  AS_IF([test -n "$plx_mpi_why"], [plx_mpi_summary="$plx_mpi_summary (skipped:$plx_mpi_why)"])
])
