# Runs rentsim once and compares its exit status, standard output and standard error with a
# golden transcript. With the environment variable RENTSIM_UPDATE_GOLDEN=1 it rewrites the
# transcript instead (then review the diff before committing).
#   cmake -DRENTSIM=exe -DARGS="run|x.json" -DGOLDEN=file -DWORKDIR=dir [-DOUTFILE=f] -P run_golden.cmake
# OUTFILE: a file the command writes, appended to the transcript (for --out / --csv).
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(
  COMMAND ${RENTSIM} ${ARGS}
  WORKING_DIRECTORY ${WORKDIR}
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  RESULT_VARIABLE code)
# Progress lines depend on how long the run took (a sweep speaks after 10 s, see
# analysis/report/progress.hpp; a loaded machine crosses that): they are not part of the
# transcript. Their format has its own tests.
string(REGEX REPLACE "rentsim: [0-9]+/[0-9]+ points \\([0-9]+%\\), [^\n]* left\n" "" err "${err}")
list(JOIN ARGS " " command_line)
set(transcript "$ rentsim ${command_line}\nexit: ${code}\n--- stdout\n${out}--- stderr\n${err}")
if(OUTFILE)
  file(READ ${WORKDIR}/${OUTFILE} written)
  file(REMOVE ${WORKDIR}/${OUTFILE})
  string(APPEND transcript "--- ${OUTFILE}\n${written}")
endif()
if("$ENV{RENTSIM_UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE ${GOLDEN} "${transcript}")
  message(STATUS "updated ${GOLDEN}")
  return()
endif()
if(NOT EXISTS ${GOLDEN})
  message(FATAL_ERROR "no golden transcript ${GOLDEN}; run with RENTSIM_UPDATE_GOLDEN=1 to create it.\nGot:\n${transcript}")
endif()
file(READ ${GOLDEN} expected)
if(NOT transcript STREQUAL expected)
  file(WRITE ${GOLDEN}.actual "${transcript}")
  execute_process(COMMAND diff -u ${GOLDEN} ${GOLDEN}.actual)
  message(FATAL_ERROR "output differs from ${GOLDEN} (actual output in ${GOLDEN}.actual)")
endif()
