// The prelude of every run, evaluated before the script with the API's
// manifest as its argument: it takes the host's functions off the global
// object (the script reaches them only through tools and console), builds
// tools and console, and leaves two entry points for the host:
// __mcpbridge_run(source), once, and __mcpbridge_settle(id, ok, text,
// payload, images), payload a call's value (itself a string with text,
// else JSON) or its error (JSON), images the host's ids of the images
// among the value's parts (JSON), "" for none.
// Whatever the script does to the globals afterwards, it can only fool
// itself: what it reaches of the host is what the host gives every call.
(function (manifest) {
	"use strict";
	const g = globalThis;
	const hostCall = g.__mcpbridge_call, hostPrint = g.__mcpbridge_print, hostDone = g.__mcpbridge_done;
	delete g.__mcpbridge_call;
	delete g.__mcpbridge_print;
	delete g.__mcpbridge_done;
	const { parse, stringify } = JSON;
	const create = Object.create, define = Object.defineProperty, keys = Object.keys, freeze = Object.freeze;
	const isArray = Array.isArray;
	const pending = new Map();
	let next = 0;
	// The images of the calls' results, each the object the script got,
	// by the host's id: an image the script returns reaches the model,
	// and only the object itself, which the script cannot forge, says so.
	const imageIDs = new Map();

	// json writes v as JSON for the host: what JSON cannot write (a
	// cycle, a BigInt, a function) as the string it reads as.
	const json = (v) => {
		try {
			const s = stringify(v);
			if (s !== undefined) return s;
		} catch (e) {}
		try {
			return stringify(String(v));
		} catch (e) {
			return stringify("[a value that cannot be shown]");
		}
	};
	// text is v as console.log shows it.
	const text = (v) => {
		if (typeof v === "string") return v;
		if (v instanceof Error) return v.name + ": " + v.message;
		if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return String(v);
		return json(v);
	};

	// invoke starts a call of the host's tool index (-1: by name) and
	// returns its promise. The Error it may reject with is made here, so
	// that its stack shows where the script made the call.
	function invoke(index, name, args, options) {
		let a = "{}";
		if (args !== undefined) {
			if (args === null || typeof args !== "object" || isArray(args)) {
				throw new TypeError(name + ": the arguments must be an object, as the declaration says");
			}
			a = stringify(args);
		}
		const id = ++next;
		const err = new Error();
		const p = new Promise((resolve, reject) => pending.set(id, { resolve, reject, err }));
		hostCall(id, index, name, a, !!(options && options.images === "base64"));
		return p;
	}

	define(g, "__mcpbridge_settle", {
		value(id, ok, text, payload, images) {
			const p = pending.get(id);
			if (!p) return;
			pending.delete(id);
			const v = text ? payload : parse(payload);
			if (ok && images !== "" && isArray(v)) {
				const ids = parse(images);
				let k = 0;
				for (const part of v) {
					if (part !== null && typeof part === "object" && part.type === "image" && k < ids.length) imageIDs.set(part, ids[k++]);
				}
			}
			if (ok) {
				p.resolve(v);
				return;
			}
			p.err.name = v.name;
			p.err.message = v.message;
			if (v.tool) p.err.tool = v.tool;
			p.reject(p.err);
		},
	});

	// guard makes an object of the API read-only, and a name it lacks an
	// error that says what there is: a tool the host did not offer (one a
	// policy denies among them) is absent.
	const quiet = new Set(["then", "toJSON", "toString", "valueOf", "constructor", "inspect"]);
	const guard = (target, where) =>
		new Proxy(target, {
			get(t, k) {
				if (typeof k !== "string" || k in t || quiet.has(k)) return t[k];
				const names = keys(t);
				const shown = names.length > 20 ? names.slice(0, 20).join(", ") + ", ..." : names.join(", ");
				throw new TypeError(where + "." + k + " is not a tool you were given; there are: " + shown);
			},
			set() {
				return false;
			},
			defineProperty() {
				return false;
			},
			deleteProperty() {
				return false;
			},
		});
	const tools = create(null);
	for (const [group, fns] of manifest) {
		const o = create(null);
		for (const [ident, index, name] of fns) {
			define(o, ident, { value: (args, options) => invoke(index, name, args, options), enumerable: true });
		}
		define(tools, group, { value: guard(o, "tools." + group), enumerable: true });
	}
	define(g, "tools", { value: guard(tools, "tools") });
	define(g, "callTool", { value: (name, args, options) => invoke(-1, String(name), args, options) });

	const line = (args) => args.map(text).join(" ");
	const con = create(null);
	for (const level of ["log", "info", "debug"]) {
		define(con, level, { value: (...a) => hostPrint(line(a)), enumerable: true });
	}
	for (const level of ["warn", "error"]) {
		define(con, level, { value: (...a) => hostPrint(level + ": " + line(a)), enumerable: true });
	}
	define(g, "console", { value: freeze(con), writable: true, configurable: true });

	const fail = (e) => {
		try {
			if (e instanceof Error) {
				hostDone(false, "", String(e.name), String(e.message), String(e.stack || ""), String(e.tool || ""));
				return;
			}
			// The interpreter throws null when its heap is too full to
			// make its own error: the host reads an uncaught null so.
			hostDone(false, "", e === null ? "null" : "", text(e), "", "");
		} catch (x) {
			hostDone(false, "", "", "the script threw a value that cannot be read", "", "");
		}
	};
	const AsyncFunction = async function () {}.constructor;
	define(g, "__mcpbridge_run", {
		configurable: true,
		value(source) {
			delete g.__mcpbridge_run;
			let f;
			try {
				f = new AsyncFunction(source);
			} catch (e) {
				fail(e);
				return;
			}
			f().then((v) => {
				if (v === undefined) {
					hostDone(true, "", "", "", "", "", "");
					return;
				}
				// The images v holds, by the host's ids, each once: only
				// when v is JSON as it is, which shows them.
				const returned = new Set();
				let value;
				try {
					value = stringify(v, (k, x) => {
						if (x !== null && typeof x === "object" && imageIDs.has(x)) returned.add(imageIDs.get(x));
						return x;
					});
				} catch (e) {}
				if (value === undefined) {
					hostDone(true, json(v), "", "", "", "", "");
					return;
				}
				hostDone(true, value, "", "", "", "", returned.size > 0 ? stringify([...returned].slice(0, 64)) : "");
			}, fail);
		},
	});
})
