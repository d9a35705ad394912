/**
 * The ten GSM8K training problems (question, worked answer ending "#### <number>") that the
 * original's multiobjective_gsm8k task embeds in its source (trace_bench/examples/
 * multiobjective_gsm8k.py, `_EMBEDDED_EXAMPLES`) and uses when the `datasets` package is absent.
 * Data only, in the original's order.
 */
export interface Gsm8kExample {
  readonly question: string;
  readonly answer: string;
}

export const GSM8K_EMBEDDED_EXAMPLES: readonly Gsm8kExample[] = [
  {
    question: "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?",
    answer: "Natalia sold 48/2 = 24 clips in May.\nNatalia sold 48+24 = 72 clips altogether in April and May.\n#### 72",
  },
  {
    question: "Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How much did she earn?",
    answer: "Weng earns 12/60 = $0.2 per minute.\nSince she babysat for 50 minutes, she earned 0.2 x 50 = $10.\n#### 10",
  },
  {
    question: "Betty is saving money for a new wallet which costs $100. Betty has only half of the money she needs. Her parents decided to give her $15 for that purpose, and her grandparents twice as much as her parents. How much more money does Betty need to buy the wallet?",
    answer: "In the beginning, Betty has only 100 / 2 = $50.\nBetty's grandparents gave her 15 * 2 = $30.\nThis means, Betty needs 100 - 50 - 30 - 15 = $5 more.\n#### 5",
  },
  {
    question: "Julie is reading a 120-page book. Yesterday, she was able to read 12 pages and today, she read twice as many pages as yesterday. If she wants to read half of the remaining pages tomorrow, how many pages should she read?",
    answer: "Julie read 12 x 2 = 24 pages today.\nSo she was able to read a total of 12 + 24 = 36 pages since yesterday.\nThere are 120 - 36 = 84 pages left to be read.\nSince she wants to read half of the remaining pages tomorrow, she should read 84 / 2 = 42 pages.\n#### 42",
  },
  {
    question: "James writes a 3-page letter to 2 different friends twice a week. How many pages does he write a year?",
    answer: "He writes each friend 3*2=6 pages a week.\nSo he writes 6*2=12 pages every week.\nThat means he writes 12*52=624 pages a year.\n#### 624",
  },
  {
    question: "Albert is wondering how much pizza he can eat in one day. He buys 2 large pizzas and 2 small pizzas. A large pizza has 16 slices and a small pizza has 8 slices. If he eats it all, how many pieces does he eat that day?",
    answer: "He eats 2*16=32 slices of large pizza.\nHe eats 2*8=16 slices of small pizza.\nHe eats a total of 32+16=48 slices.\n#### 48",
  },
  {
    question: "Ken created a care package to send to his brother, who was away at boarding school. Ken placed a box on a scale, and then he poured into the box enough jelly beans to bring the weight to 2 pounds. Then, he added enough brownies to cause the weight to triple. Next, he added another 2 pounds of jelly beans. And finally, he added enough gummy worms to double the weight once again. What was the final weight of the box of goodies, in pounds?",
    answer: "After adding the jelly beans, the weight was 2 pounds.\nAfter adding the brownies, the weight tripled to 2*3=6 pounds.\nAfter adding more jelly beans, the weight was 6+2=8 pounds.\nAfter adding the gummy worms, the weight doubled to 8*2=16 pounds.\n#### 16",
  },
  {
    question: "A farmer has 3 fields. The first field has 20 rows of corn with 8 stalks in each row. The second field has 15 rows with 12 stalks each. The third field has 10 rows with 6 stalks each. How many stalks of corn does the farmer have in total?",
    answer: "First field: 20 * 8 = 160 stalks.\nSecond field: 15 * 12 = 180 stalks.\nThird field: 10 * 6 = 60 stalks.\nTotal: 160 + 180 + 60 = 400 stalks.\n#### 400",
  },
  {
    question: "Lisa has 5 times as many marbles as Tom. Tom has 3 times as many marbles as Alex. If Alex has 4 marbles, how many marbles do they have altogether?",
    answer: "Tom has 3 * 4 = 12 marbles.\nLisa has 5 * 12 = 60 marbles.\nAltogether: 4 + 12 + 60 = 76 marbles.\n#### 76",
  },
  {
    question: "A store sold 65 apples on Monday, twice as many on Tuesday, and 15 fewer than Tuesday on Wednesday. How many apples were sold in the three days?",
    answer: "Tuesday: 65 * 2 = 130 apples.\nWednesday: 130 - 15 = 115 apples.\nTotal: 65 + 130 + 115 = 310 apples.\n#### 310",
  },
];
