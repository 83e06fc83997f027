use super::{family_fns, HoleTypes, RuleItems};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// A statement long enough that a body holding it joins a family, naming
/// nothing that is a hole.
fn padding() -> TokenStream {
    let names = (0..60).map(|_| format_ident!("v0"));
    quote! { let padding = [#(#names),*]; }
}

/// The relations `r1`, `r2` (`Rel<2>`) and `r3` (`Rel<3>`); two tables of
/// two columns.
fn types(relations: &[Option<TokenStream>]) -> HoleTypes<'_> {
    HoleTypes {
        relations,
        table_columns: vec![2, 2],
    }
}

fn relations() -> Vec<Option<TokenStream>> {
    vec![
        None,
        Some(quote! { Rel<2> }),
        Some(quote! { Rel<2> }),
        Some(quote! { Rel<3> }),
    ]
}

/// The methods, then the family functions, as one text without spaces.
fn text(items: &RuleItems) -> String {
    let all: TokenStream = items
        .methods
        .iter()
        .chain(&items.families)
        .cloned()
        .collect();
    all.to_string().split_whitespace().collect()
}

#[test]
fn copies_differing_in_ids_and_relations_share_one_function() {
    let pad = padding();
    let rule = |name: &str, id: u32, rel: &str| {
        let (name, rel) = (format_ident!("{name}"), format_ident!("{rel}"));
        let id = proc_macro2::Literal::u32_unsuffixed(id);
        quote! {
            #[doc = " a rule"]
            #[inline(never)]
            fn #name(&mut self) {
                #pad
                if !self.current.holds(#id) { return; }
                self.#rel.insert([v0, #id]);
            }
        }
    };
    let rels = relations();
    let fns = family_fns(
        vec![rule("rule_1", 7, "r1"), rule("rule_2", 9, "r2")],
        &types(&rels),
    );
    let text = text(&fns);
    assert!(
        text.contains("pub(super)fnfamily_0(this:&mutGame,ids:&[u32;1],rel1:usize)"),
        "{text}"
    );
    assert!(text.contains("this.current.holds(ids[0])"), "{text}");
    assert!(
        text.contains("this.rel_at_0(rel1).insert([v0,ids[0]])"),
        "{text}"
    );
    assert!(
        text.contains(
            "#[doc=\"arule\"]#[inline]fnrule_1(&mutself){families::family_0(self,&[7],1)}"
        ),
        "{text}"
    );
    assert!(
        text.contains("fnrule_2(&mutself){families::family_0(self,&[9],2)}"),
        "{text}"
    );
    assert!(
        text.contains(
            "fnrel_at_0(&mutself,rel:usize)->&mutRel<2>{matchrel{1=>&mutself.r1,_=>&mutself.r2,}}"
        ),
        "{text}"
    );
}

#[test]
fn a_column_index_a_short_body_a_walk_and_a_borrowed_relation_keep_their_functions() {
    let pad = padding();
    let plain = |name: &str, body: TokenStream| {
        let name = format_ident!("{name}");
        quote! { #[inline(never)] fn #name(&mut self) { #body } }
    };
    let index = |column: usize| {
        let column = proc_macro2::Literal::usize_unsuffixed(column);
        quote! { #pad let v1 = row[#column]; }
    };
    let borrowed = |rel: &str| {
        let rel = format_ident!("{rel}");
        quote! { #pad for f in ones(&self.current.0, 0, 9) { self.#rel.insert([f, f]); } }
    };
    let walk = |id: u32| {
        let id = proc_macro2::Literal::u32_unsuffixed(id);
        quote! { #pad let w = [#id]; }
    };
    let items = vec![
        plain("rule_1", index(1)),
        plain("rule_2", index(2)),
        plain("rule_3", quote! { self.r1.insert([v0, 4]); }),
        plain("rule_4", quote! { self.r2.insert([v0, 5]); }),
        plain("rule_5", borrowed("r1")),
        plain("rule_6", borrowed("r2")),
        plain("walk_7_forward", walk(1)),
        plain("walk_8_forward", walk(2)),
    ];
    let rels = relations();
    let fns = family_fns(items.clone(), &types(&rels));
    let as_text = |f: &[TokenStream]| f.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    assert_eq!(as_text(&fns.methods), as_text(&items));
    assert!(fns.families.is_empty());
}

#[test]
fn copies_differing_in_tables_layers_and_callees_take_them_as_arguments() {
    let pad = padding();
    let rule = |name: &str, table: &str, layer: &str, callee: &str| {
        let (name, table) = (format_ident!("{name}"), format_ident!("{table}"));
        let (layer, callee) = (format_ident!("{layer}"), format_ident!("{callee}"));
        quote! {
            #[inline(never)]
            fn #name(&mut self) {
                #pad
                self.#layer();
                for row in range(&#table, &[]) {
                    if self.#callee([row[0], row[1]]) { return; }
                }
            }
        }
    };
    let ask = |name: &str| {
        let name = format_ident!("{name}");
        quote! { fn #name(&mut self, t: [u32; 2]) -> bool { t[0] == t[1] } }
    };
    let items = vec![
        ask("ask_5"),
        ask("ask_6"),
        rule("rule_1", "T0", "ensure_layer_3", "ask_5"),
        rule("rule_2", "T1", "ensure_layer_4", "ask_6"),
    ];
    let rels = relations();
    let text = text(&family_fns(items, &types(&rels)));
    let head = "fnfamily_2(this:&mutGame,layer0:usize,table1:&'static[[u32;2]],callee2:usize)";
    assert!(text.contains(head), "{text}");
    assert!(
        text.contains("this.ensure_layer_at(layer0);forrowinrange(&(*table1),&[])"),
        "{text}"
    );
    assert!(
        text.contains("ifthis.call_at_0(callee2,[row[0],row[1]])"),
        "{text}"
    );
    assert!(
        text.contains("fnrule_1(&mutself){families::family_2(self,3,&T0[..],0)}"),
        "{text}"
    );
    assert!(
        text.contains("fnrule_2(&mutself){families::family_2(self,4,&T1[..],1)}"),
        "{text}"
    );
    assert!(text.contains("fncall_at_0(&mutself,callee:usize,t:[u32;2])->bool{matchcallee{0=>self.ask_5(t),_=>self.ask_6(t),}}"), "{text}");
    assert!(text.contains("fnensure_layer_at(&mutself,layer:usize){matchlayer{3=>self.ensure_layer_3(),_=>self.ensure_layer_4(),}}"), "{text}");
}
