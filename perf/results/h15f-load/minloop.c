/* minloop.c (perf/results/h15f-load) — per-call time of small MPI collectives on MPI_COMM_WORLD:
 * minimum, 25th percentile and median over batches of 200 calls; run plain and
 * with libplexus-mpi preloaded to compare the two (issue 15, taken under load).
 *   mpicc -O2 minloop.c -o minloop; mpirun -n 2 ./minloop allreduce,bcast 8 150 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int rank,n; MPI_Comm_rank(MPI_COMM_WORLD,&rank); MPI_Comm_size(MPI_COMM_WORLD,&n);
  const char *which = argc>1?argv[1]:"allreduce,reduce,bcast,allgather,alltoall,barrier";
  int bytes = argc>2?atoi(argv[2]):8, nb = argc>3?atoi(argv[3]):200, per=200;
  char *s=calloc(1<<20,1),*r=calloc(1<<20,1);
  const char *names[]={"allreduce","reduce","bcast","allgather","alltoall","barrier"};
  for(int k=0;k<6;k++){ if(!strstr(which,names[k])) continue;
    double *t=malloc(nb*sizeof*t);
    for(int b=0;b<nb;b++){
      MPI_Barrier(MPI_COMM_WORLD); double t0=MPI_Wtime();
      for(int i=0;i<per;i++) switch(k){
        case 0: MPI_Allreduce(s,r,bytes/4,MPI_FLOAT,MPI_SUM,MPI_COMM_WORLD); break;
        case 1: MPI_Reduce(s,r,bytes/4,MPI_FLOAT,MPI_SUM,0,MPI_COMM_WORLD); break;
        case 2: MPI_Bcast(s,bytes,MPI_BYTE,0,MPI_COMM_WORLD); break;
        case 3: MPI_Allgather(s,bytes/n,MPI_BYTE,r,bytes/n,MPI_BYTE,MPI_COMM_WORLD); break;
        case 4: MPI_Alltoall(s,bytes/n,MPI_BYTE,r,bytes/n,MPI_BYTE,MPI_COMM_WORLD); break;
        case 5: MPI_Barrier(MPI_COMM_WORLD); break;}
      t[b]=(MPI_Wtime()-t0)/per*1e9;
    }
    qsort(t,nb,sizeof*t,cmp);
    if(!rank) printf("%-10s %6d B  min %6.0f  p25 %6.0f  med %6.0f ns\n",names[k],bytes,t[0],t[nb/4],t[nb/2]);
    free(t);
  }
  MPI_Finalize(); return 0;
}
