L1 t_comm 88.9 idle overlap 0.850
  pid 5539 blocking: n 200 end 75.2 meet 0.2 work-meet 73.8 in-adv 74.4 calls 10
    idle n 1206: P 0.3 pt0 9.7 meet 9.9 work-meet 104.9 end 118.0 | pt in-adv 103.2 calls 1 app in-adv 0.3 | wake 112.3 over 23.1 W med 5.0 mean 12.9 P mean 0.41
  pid 5539 blocking: n 200 end 75.2 meet 0.2 work 74.0 | idle n 1206: P 0.3 pt0 9.7 meet 9.9 work 115.1 end 118.0 wake 112.3 (over 23.1) W 5.0 | unf 75% fin_app 72% | unf: end-wake 5.4 W 5.8 app_takeover 4.1
  pid 5540 blocking: n 200 end 75.3 meet 0.2 work-meet 74.8 in-adv 74.9 calls 2
    idle n 1206: P 0.3 pt0 8.9 meet 9.0 work-meet 104.1 end 117.9 | pt in-adv 102.5 calls 1 app in-adv 0.3 | wake 111.6 over 22.4 W med 4.7 mean 13.9 P mean 0.33
  pid 5540 blocking: n 200 end 75.3 meet 0.2 work 75.0 | idle n 1206: P 0.3 pt0 8.9 meet 9.0 work 113.9 end 117.9 wake 111.6 (over 22.4) W 4.7 | unf 74% fin_app 71% | unf: end-wake 5.4 W 5.9 app_takeover 4.1
L2 t_comm 92.1 idle overlap 0.813
  pid 5546 blocking: n 200 end 89.7 meet 0.2 work-meet 88.9 in-adv 89.1 calls 2
    idle n 1633: P 0.5 pt0 13.2 meet 13.4 work-meet 128.5 end 143.4 | pt in-adv 126.1 calls 1 app in-adv 0.3 | wake 135.6 over 43.0 W med 5.9 mean 10.2 P mean 0.55
  pid 5546 blocking: n 200 end 89.7 meet 0.2 work 89.2 | idle n 1633: P 0.5 pt0 13.2 meet 13.4 work 142.1 end 143.4 wake 135.6 (over 43.0) W 5.9 | unf 93% fin_app 91% | unf: end-wake 5.7 W 6.0 app_takeover 5.2
  pid 5547 blocking: n 200 end 89.8 meet 0.3 work-meet 75.0 in-adv 85.3 calls 109
    idle n 1633: P 0.4 pt0 10.0 meet 10.1 work-meet 78.6 end 137.4 | pt in-adv 103.3 calls 17 app in-adv 4.2 | wake 115.0 over 22.5 W med 25.5 mean 23.0 P mean 0.44
  pid 5547 blocking: n 200 end 89.8 meet 0.3 work 75.5 | idle n 1633: P 0.4 pt0 10.0 meet 10.1 work 88.9 end 137.4 wake 115.0 (over 22.5) W 25.5 | unf 88% fin_app 87% | unf: end-wake 19.5 W 27.9 app_takeover 3.9
L3 t_comm 84.8 idle overlap 0.846
  pid 5553 blocking: n 200 end 75.3 meet 0.2 work-meet 74.5 in-adv 74.8 calls 5
    idle n 1072: P 0.3 pt0 9.0 meet 9.0 work-meet 104.5 end 115.7 | pt in-adv 102.5 calls 1 app in-adv 0.3 | wake 109.5 over 24.4 W med 4.7 mean 11.7 P mean 0.32
  pid 5553 blocking: n 200 end 75.3 meet 0.2 work 74.7 | idle n 1072: P 0.3 pt0 9.0 meet 9.0 work 113.9 end 115.7 wake 109.5 (over 24.4) W 4.7 | unf 94% fin_app 93% | unf: end-wake 4.5 W 4.7 app_takeover 4.1
  pid 5554 blocking: n 200 end 75.3 meet 0.2 work-meet 74.6 in-adv 74.7 calls 3
    idle n 1072: P 0.3 pt0 9.1 meet 9.1 work-meet 102.9 end 115.7 | pt in-adv 100.9 calls 1 app in-adv 1.0 | wake 108.1 over 23.0 W med 6.2 mean 13.4 P mean 0.34
  pid 5554 blocking: n 200 end 75.3 meet 0.2 work 74.8 | idle n 1072: P 0.3 pt0 9.1 meet 9.1 work 112.5 end 115.7 wake 108.1 (over 23.0) W 6.2 | unf 94% fin_app 92% | unf: end-wake 6.1 W 6.3 app_takeover 4.0
L4 t_comm 90.5 idle overlap 0.939
  pid 5560 blocking: n 200 end 75.5 meet 0.1 work-meet 74.3 in-adv 74.9 calls 12
    idle n 1792: P 0.3 pt0 8.4 meet 8.5 work-meet 79.4 end 89.7 | pt in-adv 79.7 calls 2 app in-adv 0.0 | wake 111.7 over 21.0 W med 3.4 mean 4.3 P mean 0.31
  pid 5560 blocking: n 200 end 75.5 meet 0.1 work 74.4 | idle n 1792: P 0.3 pt0 8.4 meet 8.5 work 88.1 end 89.7 wake 111.7 (over 21.0) W 3.4 | unf 47% fin_app 39% | unf: end-wake 4.4 W 4.6 app_takeover 3.9
  pid 5561 blocking: n 200 end 75.6 meet 0.2 work-meet 75.2 in-adv 75.2 calls 2
    idle n 1792: P 0.3 pt0 8.4 meet 8.6 work-meet 79.7 end 111.0 | pt in-adv 80.4 calls 2 app in-adv 0.0 | wake 111.3 over 20.6 W med 3.6 mean 5.5 P mean 0.32
  pid 5561 blocking: n 200 end 75.6 meet 0.2 work 75.4 | idle n 1792: P 0.3 pt0 8.4 meet 8.6 work 88.7 end 111.0 wake 111.3 (over 20.6) W 3.6 | unf 56% fin_app 46% | unf: end-wake 4.2 W 4.4 app_takeover 3.9
L5 t_comm 98.1 idle overlap 0.853
  pid 5567 blocking: n 200 end 90.1 meet 0.3 work-meet 89.8 in-adv 89.6 calls 2
    idle n 1099: P 0.4 pt0 10.9 meet 11.9 work-meet 126.6 end 138.5 | pt in-adv 124.4 calls 1 app in-adv 0.3 | wake 132.7 over 34.2 W med 5.5 mean 6.9 P mean 0.41
  pid 5567 blocking: n 200 end 90.1 meet 0.3 work 90.0 | idle n 1099: P 0.4 pt0 10.9 meet 11.9 work 138.5 end 138.5 wake 132.7 (over 34.2) W 5.5 | unf 99% fin_app 99% | unf: end-wake 5.3 W 5.5 app_takeover 5.0
  pid 5568 blocking: n 200 end 90.2 meet 0.3 work-meet 74.9 in-adv 84.1 calls 158
    idle n 1099: P 0.3 pt0 8.4 meet 8.4 work-meet 79.6 end 132.2 | pt in-adv 103.4 calls 90 app in-adv 3.9 | wake 117.8 over 19.4 W med 25.4 mean 21.0 P mean 0.29
  pid 5568 blocking: n 200 end 90.2 meet 0.3 work 75.2 | idle n 1099: P 0.3 pt0 8.4 meet 8.4 work 88.6 end 132.2 wake 117.8 (over 19.4) W 25.4 | unf 99% fin_app 98% | unf: end-wake 14.9 W 25.4 app_takeover 3.6
L6 t_comm 96.2 idle overlap 0.872
  pid 5574 blocking: n 200 end 90.6 meet 0.3 work-meet 90.1 in-adv 90.1 calls 2
    idle n 1969: P 0.4 pt0 9.0 meet 9.7 work-meet 80.1 end 127.9 | pt in-adv 104.2 calls 2 app in-adv 0.2 | wake 120.1 over 23.5 W med 5.2 mean 11.2 P mean 0.39
  pid 5574 blocking: n 200 end 90.6 meet 0.3 work 90.4 | idle n 1969: P 0.4 pt0 9.0 meet 9.7 work 89.8 end 127.9 wake 120.1 (over 23.5) W 5.2 | unf 67% fin_app 63% | unf: end-wake 5.7 W 6.2 app_takeover 4.4
  pid 5575 blocking: n 200 end 90.7 meet 0.3 work-meet 74.5 in-adv 84.2 calls 166
    idle n 1969: P 0.3 pt0 9.4 meet 11.0 work-meet 78.1 end 130.2 | pt in-adv 104.9 calls 19 app in-adv 0.3 | wake 119.6 over 23.1 W med 5.0 mean 11.6 P mean 0.36
  pid 5575 blocking: n 200 end 90.7 meet 0.3 work 74.8 | idle n 1969: P 0.3 pt0 9.4 meet 11.0 work 91.8 end 130.2 wake 119.6 (over 23.1) W 5.0 | unf 79% fin_app 73% | unf: end-wake 5.4 W 5.6 app_takeover 4.3
