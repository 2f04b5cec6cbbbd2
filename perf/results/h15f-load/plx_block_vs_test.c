/* plx_block_vs_test.c (perf/results/h15f-load) — 8-byte plx_allreduce against
 * plx_iallreduce + a plx_test loop and plx_iallreduce + plx_wait: minimum over
 * 300 batches of 200 calls (issue 15: what the layer's wait costs).
 *   cc -O2 -Iinclude plx_block_vs_test.c -L.libs -lplexus; tools/plexusrun -n 2 ./a.out */
#include <plexus.h>
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(void){
  plx_context_t ctx; plx_init(&ctx); plx_comm_t w; plx_comm_world(ctx,&w);
  int rank; plx_comm_rank(w,&rank);
  float s[2]={1,2}, r[2];
  for (int mode=0; mode<3; mode++) for (int rep=0; rep<2; rep++) {
    double best=1e30;
    for (int b=0;b<300;b++){
      plx_barrier(w);
      double t0=now();
      for(int i=0;i<200;i++){
        if(mode==0) plx_allreduce(s,r,2,PLX_FLOAT32,PLX_SUM,w);
        else { plx_request_t q; plx_iallreduce(s,r,2,PLX_FLOAT32,PLX_SUM,w,&q);
          if(mode==1){int d=0; while(!d) plx_test(&q,&d);} else plx_wait(&q);}
      }
      double t=(now()-t0)/200; if(t<best)best=t;
    }
    if(!rank) printf("mode %s: %.0f ns\n", mode==0?"blocking":mode==1?"i+test":"i+wait", best);
  }
  plx_finalize(&ctx); return 0;
}
