package codemode_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A script against local tools; an MCP server's are reached the same way,
// as tools.<server>.<tool> (mcptool.Provider.Offer gives its Set).
func Example() {
	type (
		in struct {
			City string `json:"city"`
		}
		reading struct {
			City    string `json:"city"`
			Celsius int    `json:"celsius"`
		}
	)
	weather, err := tool.Func("weather", "Current temperature in a city, in °C.", func(_ context.Context, a in) (reading, error) {
		return reading{City: a.City, Celsius: len(a.City) * 3}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	rt, err := codemode.New(weather, codemode.Config{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(rt.Declarations(""))
	out, err := rt.Run(context.Background(), `
		const cities = ["Oslo", "Lima", "Montreal"];
		const temps = await Promise.all(cities.map(city => tools.local.weather({city})));
		console.log("asked", temps.length, "cities");
		return temps.reduce((a, b) => a.celsius >= b.celsius ? a : b).city;
	`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n%s%s\n", out.Value, out.Console, out.Summary)
	// Output:
	// declare const tools: {
	//   local: {
	//     /** Current temperature in a city, in °C. */
	//     weather(args: {
	//       city: string;
	//     }): Promise<{
	//       city: string;
	//       celsius: number;
	//     }>;
	//   };
	// };
	// "Montreal"
	// asked 3 cities
	// 3 tool calls (local.weather 3)
}

// The tools a model gets in code mode, over a Set: run_code runs a script
// and describe_tools answers declarations. The agent offers them itself
// in its code mode (agent.Config.Mode); a Runtime is also a tool.Source.
func ExampleRuntime_Offer() {
	add, _ := tool.Func("add", "Add two numbers.", func(_ context.Context, a struct{ X, Y float64 }) (float64, error) { return a.X + a.Y, nil })
	rt, _ := codemode.New(add, codemode.Config{})
	set, _ := rt.Offer(context.Background())
	for _, d := range set.Definitions {
		fmt.Println(d.Name)
	}
	res, err := set.Handler.Call(context.Background(), "run_code", []byte(`{"code": "return await tools.local.add({X: 2, Y: 3})"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	// Output:
	// run_code
	// describe_tools
	// 1 tool call (local.add 1).
	// Returned: 5
}

// New takes the Set a script may call and the budgets of its runs; a
// script that reaches one is stopped with a BudgetError naming it, and
// what it did so far comes back. A negative budget is refused.
func ExampleNew() {
	type order struct {
		Item string `json:"item"`
	}
	buy, err := tool.Func("buy", "Buy one item.", func(_ context.Context, o order) (string, error) { return "bought " + o.Item, nil })
	if err != nil {
		log.Fatal(err)
	}
	_, err = codemode.New(buy, codemode.Config{MaxCalls: -1})
	fmt.Println(err)

	rt, err := codemode.New(buy, codemode.Config{MaxCalls: 3, Timeout: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	out, err := rt.Run(context.Background(), `for (;;) console.log(await tools.local.buy({item: "apple"}))`)
	var budget *codemode.BudgetError
	if errors.As(err, &budget) {
		fmt.Printf("stopped by %s after %d calls\n", budget.Budget, out.Calls)
	}
	fmt.Print(out.Console)
	// Output:
	// codemode: Config.MaxCalls is negative: a script's budgets cannot be lifted
	// stopped by MaxCalls after 3 calls
	// bought apple
	// bought apple
	// bought apple
}

// A program whose main calls ServeIfChild first runs each script in a
// process of its own, which the host kills at a budget whatever the script
// runs: here one indexOf that would take minutes inside the interpreter's
// built-in, stopped at its CPU budget (and at once, were ctx cancelled).
func ExampleServeIfChild() {
	codemode.ServeIfChild() // first in main: in the script's process it runs the script and exits

	rt, err := codemode.New(tool.Set{}, codemode.Config{CPUTime: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	_, err = rt.Run(context.Background(), `return "a".repeat(3e7).indexOf("a".repeat(2e4) + "b")`)
	fmt.Println(err)
	// Output:
	// the script was stopped at its CPU budget of 1s: an endless loop?
}
